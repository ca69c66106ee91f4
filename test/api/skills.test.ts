// Skills share the revisioned lifecycle with agents; these tests cover what is theirs: content
// validation and canonical form, plus the lifecycle through their own endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let otherKey: string;
let readOnly: string;
beforeAll(async () => {
  t = await startTestApp();
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
});
afterAll(async () => {
  await t.stop();
});

const content = {
  name: 'pdf-forms',
  description: 'Fill PDF forms',
  instructions: '# Filling forms\n\nUse the script.',
  files: [
    { path: 'scripts/fill.py', content: 'print(1)', media_type: 'text/x-python' },
    { path: 'README.md', content: 'hi' },
  ],
};

async function createSkill(body: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/skills', { body: { name: 'PDF forms', content, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { skill: response.body, etag: response.headers.get('etag')! };
}

describe('skills', () => {
  it('create a head and revision 1 with canonical content (files sorted, media types filled)', async () => {
    const { skill, etag } = await createSkill({ labels: { area: 'docs' } });
    expect(skill.id).toMatch(/^skl_/);
    expect(skill).toMatchObject({ name: 'PDF forms', labels: { area: 'docs' }, version: 1, archived_at: null, source: 'custom' });
    expect(etag).toBe(`"${skill.id}:1"`);
    const revision = await t.rest('GET', `/api/v1/skills/${skill.id}/revisions/${skill.default_revision_id}`);
    expect(revision.body).toMatchObject({ skill_id: skill.id, number: 1 });
    expect(revision.body.id).toMatch(/^skr_/);
    expect(revision.body.content.files.map((f: { path: string }) => f.path)).toEqual(['README.md', 'scripts/fill.py']);
    expect(revision.body.content.files[0].media_type).toBe('text/plain');
  });

  it('publish new revisions, and return the default one for identical content (file order does not matter)', async () => {
    const { skill, etag } = await createSkill();
    const same = await t.rest('POST', `/api/v1/skills/${skill.id}/revisions`, {
      headers: { 'if-match': etag },
      body: { content: { ...content, files: [...content.files].reverse() } },
    });
    expect(same.status).toBe(201);
    expect(same.body.id).toBe(skill.default_revision_id);
    const changed = await t.rest('POST', `/api/v1/skills/${skill.id}/revisions`, {
      headers: { 'if-match': etag },
      body: { content: { ...content, instructions: 'v2' }, note: 'v2' },
    });
    expect(changed.body).toMatchObject({ number: 2, note: 'v2' });
    const head = await t.rest('GET', `/api/v1/skills/${skill.id}`);
    expect(head.body).toMatchObject({ default_revision_id: changed.body.id, version: 2 });
    const reverted = await t.rest('POST', `/api/v1/skills/${skill.id}/revisions/${skill.default_revision_id}/set-default`, {
      headers: { 'if-match': head.headers.get('etag')! },
    });
    expect(reverted.body.default_revision_id).toBe(skill.default_revision_id);
  });

  it('refuse invalid content naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ ...content, name: 'Not Valid' }, 'content.name'],
      [{ ...content, instructions: undefined }, 'content.instructions'],
      [{ ...content, files: [{ path: '../etc/passwd', content: 'x' }] }, 'content.files[0].path'],
      [
        {
          ...content,
          files: [
            { path: 'a', content: 'x' },
            { path: 'a', content: 'y' },
          ],
        },
        'content.files[1].path',
      ],
      [{ ...content, extra: 1 }, 'content.extra'],
      ['text', 'content'],
    ];
    for (const [value, field] of cases) {
      const response = await t.rest('POST', '/api/v1/skills', { body: { name: 'x', content: value } });
      expect(response.status, field).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    }
  });

  it('allow 32 labels and refuse 33', async () => {
    const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect((await t.rest('POST', '/api/v1/skills', { body: { name: 'x', content, labels: labels(32) } })).status).toBe(201);
    const tooMany = await t.rest('POST', '/api/v1/skills', { body: { name: 'x', content, labels: labels(33) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details.field).toBe('labels');
  });

  it('archive and unarchive, list by archived/q/label, and stay in their workspace', async () => {
    const { skill, etag } = await createSkill({ name: 'Archivable thing', labels: { z: '1' } });
    const archived = await t.rest('POST', `/api/v1/skills/${skill.id}/archive`, { headers: { 'if-match': etag } });
    expect(archived.body.archived_at).toEqual(expect.any(String));
    const archivedList = await t.rest('GET', '/api/v1/skills?archived=true&q=archivable&label=z:1');
    expect(archivedList.body.items.map((s: { id: string }) => s.id)).toEqual([skill.id]);
    const openList = await t.rest('GET', '/api/v1/skills?limit=100');
    expect(openList.body.items.map((s: { id: string }) => s.id)).not.toContain(skill.id);
    const unarchived = await t.rest('POST', `/api/v1/skills/${skill.id}/unarchive`, {
      headers: { 'if-match': archived.headers.get('etag')! },
    });
    expect(unarchived.body.archived_at).toBeNull();
    expect((await t.rest('GET', `/api/v1/skills/${skill.id}`, { token: otherKey })).status).toBe(404);
    expect((await t.rest('POST', `/api/v1/skills/${skill.id}/archive`, { token: otherKey, headers: { 'if-match': '*' } })).status).toBe(
      404,
    );
    expect((await t.rest('GET', '/api/v1/skills', { token: otherKey })).body.items).toEqual([]);
    expect((await t.rest('DELETE', `/api/v1/skills/${skill.id}`)).status).toBe(405);
  });

  it('unarchive needs no If-Match, as for agents; a stale one is refused with 412', async () => {
    const { skill, etag } = await createSkill({ name: 'Unarchived without header' });
    const archived = await t.rest('POST', `/api/v1/skills/${skill.id}/archive`, { headers: { 'if-match': etag } });
    expect(archived.status).toBe(200);
    const stale = await t.rest('POST', `/api/v1/skills/${skill.id}/unarchive`, { headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('precondition_failed');
    const unarchived = await t.rest('POST', `/api/v1/skills/${skill.id}/unarchive`);
    expect(unarchived.status, JSON.stringify(unarchived.body)).toBe(200);
    expect(unarchived.body.archived_at).toBeNull();
    // Archive still needs it.
    expect((await t.rest('POST', `/api/v1/skills/${skill.id}/archive`)).status).toBe(428);
  });

  it('need write for every change, unarchive and set-default included', async () => {
    const { skill, etag } = await createSkill();
    // Archived first, so that an unarchive let through would change the head.
    const archived = await t.rest('POST', `/api/v1/skills/${skill.id}/archive`, { headers: { 'if-match': etag } });
    const current = archived.headers.get('etag')!;
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/v1/skills', { name: 'x', content }],
      ['PATCH', `/api/v1/skills/${skill.id}`, { name: 'x' }],
      ['POST', `/api/v1/skills/${skill.id}/archive`],
      ['POST', `/api/v1/skills/${skill.id}/unarchive`],
      ['POST', `/api/v1/skills/${skill.id}/revisions`, { content: { ...content, instructions: 'v2' } }],
      ['POST', `/api/v1/skills/${skill.id}/revisions/${skill.default_revision_id}/set-default`],
    ];
    for (const [method, path, body] of calls) {
      const response = await t.rest(method, path, { token: readOnly, headers: { 'if-match': current }, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error).toMatchObject({ code: 'permission_denied', details: { permission: 'write' } });
    }
    expect((await t.rest('GET', `/api/v1/skills/${skill.id}`)).body).toMatchObject({ version: archived.body.version });
  });

  it('refuse a set-default with a superseded ETag (412) and leave the default alone', async () => {
    const { skill, etag } = await createSkill();
    const published = await t.rest('POST', `/api/v1/skills/${skill.id}/revisions`, {
      headers: { 'if-match': etag },
      body: { content: { ...content, instructions: 'v2' } },
    });
    expect(published.status).toBe(201);
    const stale = await t.rest('POST', `/api/v1/skills/${skill.id}/revisions/${skill.default_revision_id}/set-default`, {
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('precondition_failed');
    expect((await t.rest('GET', `/api/v1/skills/${skill.id}`)).body.default_revision_id).toBe(published.body.id);
  });

  it('are served by GraphQL too', async () => {
    const { data, errors } = await t.graphql(
      'mutation($c: SkillContentDocument!) { createSkill(input: {name: "G", content: $c}) { skill { id etag version } } }',
      {
        c: content,
      },
    );
    expect(errors).toBeUndefined();
    const read = await t.graphql(
      'query($id: ID!) { skill(id: $id) { name } skillRevisions(skillId: $id) { nodes { number content { name } } } }',
      {
        id: data.createSkill.skill.id,
      },
    );
    expect(read.data.skill.name).toBe('G');
    expect(read.data.skillRevisions.nodes[0].content.name).toBe('pdf-forms');
  });
});
