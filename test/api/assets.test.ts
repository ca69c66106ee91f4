// Assets through REST and GraphQL: raw and multipart uploads (streamed, 413 past ASSET_MAX_BYTES),
// the media type sniffed and checked, small files in the database and large ones on disk, downloads
// with ETag, If-None-Match and Range (across the chunks the shim reads), lists with filters and
// cursors, DELETE retiring (content stays readable), permissions, audit rows and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { insertModel } from '../helpers/fixtures.js';

// A 1×1 PNG and the start of a JPEG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), randomBytes(64)]);
const INLINE_MAX = 4096;
const MAX = 3 * 1024 * 1024;

let t: TestApp;
let otherKey: string;
let readOnly: string;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A raw upload: the bytes as the body with their Content-Type. */
async function upload(bytes: Buffer, contentType: string, query = '', token = t.apiKey) {
  const response = await fetch(`${t.url}/api/v1/assets${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: new Uint8Array(bytes),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function download(path: string, headers: Record<string, string> = {}, token = t.apiKey) {
  const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function auditActions(id: string) {
  return ((await t.rest('GET', `/api/v1/audit-events?resource_id=${id}`)).body.items as { action: string }[]).map((row) => row.action);
}

const spooledLeft = () => {
  const dir = join(t.app.deps.config.dataDir, 'assets', 'tmp');
  return existsSync(dir) ? readdirSync(dir) : [];
};

beforeAll(async () => {
  t = await startTestApp({ assetInlineMaxBytes: INLINE_MAX, assetMaxBytes: MAX });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
});
afterAll(async () => {
  await t?.stop();
});

describe('assets: upload and read', () => {
  it('a raw upload answers 201 with the view and its ETag; the content comes back byte for byte with its sha256 ETag', async () => {
    const created = await upload(PNG, 'image/png', '?name=pixel.png&description=one%20pixel&label=team:core&label=kind:icon');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      workspace_id: t.workspaceId,
      name: 'pixel.png',
      description: 'one pixel',
      media_type: 'image/png',
      size_bytes: PNG.length,
      sha256: sha256(PNG),
      labels: { team: 'core', kind: 'icon' },
      retired_at: null,
      version: 1,
    });
    expect(created.body.id).toMatch(/^ast_/);
    expect(created.body.content_url).toBe(`/api/v1/assets/${created.body.id}/content`);
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:1"`);

    const one = await t.rest('GET', `/api/v1/assets/${created.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);
    expect(one.headers.get('etag')).toBe(`"${created.body.id}:1"`);

    const content = await download(created.body.content_url);
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(content.headers.get('etag')).toBe(`"${sha256(PNG)}"`);
    expect(content.headers.get('accept-ranges')).toBe('bytes');
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
    expect(content.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    const head = await fetch(`${t.url}${created.body.content_url}`, { method: 'HEAD', headers: { authorization: `Bearer ${t.apiKey}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));
    expect(content.bytes.equals(PNG)).toBe(true);
    // Small: kept in the database row.
    const row = await t.app.deps.db.asset.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.storage).toBe('database');
    expect(Buffer.from(row.content!).equals(PNG)).toBe(true);
    expect(await auditActions(created.body.id)).toEqual(['create']);
  });

  it('a large file is streamed to disk (content-addressed), read back whole and by ranges across chunks, and 304 for its ETag', async () => {
    const bytes = randomBytes(2_500_000);
    const created = await upload(bytes, 'application/octet-stream', '?name=blob.bin');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ media_type: 'application/octet-stream', size_bytes: bytes.length, sha256: sha256(bytes) });
    const row = await t.app.deps.db.asset.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.storage).toBe('file');
    expect(row.content).toBeNull();
    const digest = sha256(bytes);
    expect(existsSync(join(t.app.deps.config.dataDir, 'assets', digest.slice(0, 2), digest))).toBe(true);
    expect(spooledLeft()).toEqual([]);

    const whole = await download(created.body.content_url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(bytes.length));
    expect(sha256(whole.bytes)).toBe(digest);

    // A range over the shim's 1 MiB chunk boundary, an open-ended one and a suffix.
    const middle = await download(created.body.content_url, { range: 'bytes=1048000-1049999' });
    expect(middle.status).toBe(206);
    expect(middle.headers.get('content-range')).toBe(`bytes 1048000-1049999/${bytes.length}`);
    expect(middle.bytes.equals(bytes.subarray(1048000, 1050000))).toBe(true);
    const tail = await download(created.body.content_url, { range: 'bytes=-10' });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const from = await download(created.body.content_url, { range: 'bytes=2000000-' });
    expect(from.bytes.equals(bytes.subarray(2_000_000))).toBe(true);

    const outside = await download(created.body.content_url, { range: `bytes=${bytes.length}-` });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(JSON.parse(outside.bytes.toString()).error.code).toBe('range_not_satisfiable');
    // If-Range with another ETag: the whole content.
    const stale = await download(created.body.content_url, { range: 'bytes=0-9', 'if-range': '"other"' });
    expect(stale.status).toBe(200);
    expect(stale.bytes.length).toBe(bytes.length);

    const cached = await download(created.body.content_url, { 'if-none-match': `"${digest}"` });
    expect(cached.status).toBe(304);
    expect(cached.bytes.length).toBe(0);

    // The same bytes again: a second asset, one file.
    const again = await upload(bytes, 'application/octet-stream');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(created.body.id);
    expect(readdirSync(join(t.app.deps.config.dataDir, 'assets', digest.slice(0, 2))).filter((name) => name === digest)).toHaveLength(1);
  });

  it('past ASSET_MAX_BYTES: 413 whether the length is declared or the body is chunked, nothing stored, nothing left behind', async () => {
    const before = await t.app.deps.db.asset.count();
    const declared = await upload(randomBytes(MAX + 1), 'application/octet-stream');
    expect(declared.status).toBe(413);
    expect(declared.body.error).toMatchObject({ code: 'payload_too_large', details: { limit_bytes: MAX } });

    // Chunked (no Content-Length): refused once the stream passes the limit.
    const chunked = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${t.url}/api/v1/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      const piece = randomBytes(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent <= MAX + piece.length) {
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.code).toBe('payload_too_large');
    expect(await t.app.deps.db.asset.count()).toBe(before);
    expect(spooledLeft()).toEqual([]);
  });

  it('multipart: the file part with name, description, labels and media type parts', async () => {
    const form = new FormData();
    form.set('name', 'photo');
    form.set('description', 'a photo');
    form.set('labels', JSON.stringify({ album: 'trip' }));
    form.set('file', new Blob([JPEG], { type: 'image/jpeg' }), 'photo.jpg');
    const response = await fetch(`${t.url}/api/v1/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}` },
      body: form,
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      name: 'photo',
      description: 'a photo',
      labels: { album: 'trip' },
      media_type: 'image/jpeg',
      size_bytes: JPEG.length,
    });

    // Without a name part, the file's name.
    const named = new FormData();
    named.set('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
    const second = await fetch(`${t.url}/api/v1/assets`, { method: 'POST', headers: { authorization: `Bearer ${t.apiKey}` }, body: named });
    expect(((await second.json()) as any).name).toBe('dot.png');

    const refusals: [FormData, string][] = [];
    const noFile = new FormData();
    noFile.set('name', 'x');
    refusals.push([noFile, 'file']);
    const unknown = new FormData();
    unknown.set('colour', 'red');
    unknown.set('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
    refusals.push([unknown, 'colour']);
    const badLabels = new FormData();
    badLabels.set('labels', '{not json');
    badLabels.set('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
    refusals.push([badLabels, 'labels']);
    const twoFiles = new FormData();
    // A first file large enough to be still spooling when the second part arrives: the refusal must
    // wait for its file to close before removing it, or the file is left behind.
    twoFiles.append('file', new Blob([randomBytes(512 * 1024)], { type: 'application/octet-stream' }), 'a.bin');
    twoFiles.append('file', new Blob([PNG], { type: 'image/png' }), 'b.png');
    refusals.push([twoFiles, 'file']);
    for (const [form, field] of refusals) {
      const refused = await fetch(`${t.url}/api/v1/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.apiKey}` },
        body: form,
      });
      const error = ((await refused.json()) as any).error;
      expect(refused.status, JSON.stringify(error)).toBe(400);
      expect(error.details.field).toBe(field);
      expect(spooledLeft(), field).toEqual([]);
    }

    const big = new FormData();
    big.set('file', new Blob([randomBytes(MAX + 10)], { type: 'application/octet-stream' }), 'big.bin');
    const tooBig = await fetch(`${t.url}/api/v1/assets`, { method: 'POST', headers: { authorization: `Bearer ${t.apiKey}` }, body: big });
    expect(tooBig.status).toBe(413);
    expect(spooledLeft()).toEqual([]);
  });

  it('the media type is sniffed: a mismatch is refused, a generic declaration takes what the bytes are, text is taken as declared', async () => {
    const mismatch = await upload(JPEG, 'image/png');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { field: 'media_type', declared: 'image/png', detected: 'image/jpeg' },
    });
    const notImage = await upload(Buffer.from('hello, not a picture'), 'image/png');
    expect(notImage.status).toBe(400);
    expect(notImage.body.error.details).toMatchObject({ field: 'media_type', detected: null });
    const textAsImage = await upload(PNG, 'text/plain');
    expect(textAsImage.status).toBe(400);

    const sniffed = await upload(PNG, 'application/octet-stream');
    expect(sniffed.body.media_type).toBe('image/png');
    const text = await upload(Buffer.from('a,b\n1,2\n'), 'text/csv; charset=utf-8');
    expect(text.status).toBe(201);
    expect(text.body.media_type).toBe('text/csv');
    const alias = await upload(JPEG, 'image/jpg');
    expect(alias.body.media_type).toBe('image/jpeg');
    // The media_type query overrides the Content-Type.
    const overridden = await upload(PNG, 'application/octet-stream', '?media_type=image/png');
    expect(overridden.body.media_type).toBe('image/png');

    const empty = await upload(Buffer.alloc(0), 'text/plain');
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.field).toBe('file');
    const badType = await upload(PNG, 'not a type');
    expect(badType.status).toBe(400);
    // A compressed body would be stored compressed: refused.
    const encoded = await fetch(`${t.url}/api/v1/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png', 'content-encoding': 'gzip' },
      body: new Uint8Array(PNG),
    });
    expect(encoded.status).toBe(400);
    expect(((await encoded.json()) as any).error.details.field).toBe('Content-Encoding');
  });
});

describe('assets: lists, retiring, permissions and tenancy', () => {
  it('lists newest first with media type, label, q and retired filters and cursors; DELETE retires and the content stays readable', async () => {
    const a = (await upload(PNG, 'image/png', '?name=alpha&label=set:l')).body;
    const b = (await upload(JPEG, 'image/jpeg', '?name=beta&label=set:l')).body;
    const c = (await upload(Buffer.from('notes'), 'text/plain', '?name=gamma&label=set:l')).body;

    const page1 = await t.rest('GET', '/api/v1/assets?label=set:l&limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((item: any) => item.id)).toEqual([c.id, b.id]);
    expect(page1.body.items[0].etag).toBeUndefined();
    const page2 = await t.rest('GET', `/api/v1/assets?label=set:l&limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body).toEqual({ items: [a], next_cursor: null });
    const images = await t.rest('GET', '/api/v1/assets?label=set:l&media_type=image/*');
    expect(images.body.items.map((item: any) => item.id)).toEqual([b.id, a.id]);
    const jpeg = await t.rest('GET', '/api/v1/assets?label=set:l&media_type=image/jpeg');
    expect(jpeg.body.items.map((item: any) => item.id)).toEqual([b.id]);
    const named = await t.rest('GET', '/api/v1/assets?label=set:l&q=ALP');
    expect(named.body.items.map((item: any) => item.id)).toEqual([a.id]);
    expect((await t.rest('GET', '/api/v1/assets?media_type=nope')).status).toBe(400);

    // Retire with a stale ETag: refused; with none (optional) or the current one: retired.
    expect((await t.rest('DELETE', `/api/v1/assets/${a.id}`, { headers: { 'if-match': `"${a.id}:7"` } })).status).toBe(412);
    const retired = await t.rest('DELETE', `/api/v1/assets/${a.id}`, { headers: { 'if-match': `"${a.id}:1"` } });
    expect(retired.status).toBe(200);
    expect(retired.body).toMatchObject({ id: a.id, version: 2 });
    expect(retired.body.retired_at).not.toBeNull();
    expect(retired.headers.get('etag')).toBe(`"${a.id}:2"`);
    // Again: nothing changes.
    const again = await t.rest('DELETE', `/api/v1/assets/${a.id}`);
    expect(again.body).toEqual(retired.body);
    expect(await auditActions(a.id)).toEqual(['retire', 'create']);

    const content = await download(a.content_url);
    expect(content.status).toBe(200);
    expect(content.bytes.equals(PNG)).toBe(true);
    expect((await t.rest('GET', `/api/v1/assets/${a.id}`)).body.retired_at).toBe(retired.body.retired_at);
    const listed = await t.rest('GET', '/api/v1/assets?label=set:l');
    expect(listed.body.items.map((item: any) => item.id)).toEqual([c.id, b.id]);
    const onlyRetired = await t.rest('GET', '/api/v1/assets?label=set:l&retired=true');
    expect(onlyRetired.body.items.map((item: any) => item.id)).toEqual([a.id]);
  });

  it('read-only keys read but cannot upload or retire; another workspace gets 404s, empty lists and null nodes', async () => {
    const asset = (await upload(PNG, 'image/png', '?name=mine')).body;
    expect((await upload(PNG, 'image/png', '', readOnly)).status).toBe(403);
    expect((await t.rest('DELETE', `/api/v1/assets/${asset.id}`, { token: readOnly })).status).toBe(403);
    expect((await t.rest('GET', `/api/v1/assets/${asset.id}`, { token: readOnly })).status).toBe(200);

    for (const [method, path] of [
      ['GET', `/api/v1/assets/${asset.id}`],
      ['GET', `/api/v1/assets/${asset.id}/content`],
      ['DELETE', `/api/v1/assets/${asset.id}`],
    ] as const) {
      const response = await t.rest(method, path, { token: otherKey });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    const list = await t.rest('GET', '/api/v1/assets', { token: otherKey });
    expect(list.body.items).toEqual([]);
    const node = await t.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: asset.id }, { token: otherKey });
    expect(node.data.node).toBeNull();
    const own = await t.graphql(`query($id: ID!) { node(id: $id) { ... on Asset { id sha256 } } }`, { id: asset.id });
    expect(own.data.node).toEqual({ id: asset.id, sha256: asset.sha256 });
    expect((await t.rest('GET', `/api/v1/assets/${asset.id}`)).body.retired_at).toBeNull();
  });

  it('without credentials: 401; an upload refused for its caller or announced size is answered before its body is sent', async () => {
    expect((await upload(PNG, 'image/png', '', '')).status).toBe(401);
    // The body is never finished: the answer must come from the headers alone.
    const early = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(`${t.url}/api/v1/assets`, {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream', ...headers },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode!, body: JSON.parse(text) });
          });
        });
        req.on('error', reject);
        req.write(randomBytes(1024));
      });
    expect((await early({ 'transfer-encoding': 'chunked' })).status).toBe(401);
    const denied = await early({ authorization: `Bearer ${readOnly}`, 'transfer-encoding': 'chunked' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('permission_denied');
    const announced = await early({ authorization: `Bearer ${t.apiKey}`, 'content-length': String(MAX + 1) });
    expect(announced.status).toBe(413);
    expect(spooledLeft()).toEqual([]);
  });
});

describe('assets through GraphQL', () => {
  it('uploads with the GraphQL multipart request, reads ranges in base64, lists and retires', async () => {
    const form = new FormData();
    form.set(
      'operations',
      JSON.stringify({
        query: `mutation($file: File!) { uploadAsset(input: {file: $file, labels: {via: "graphql"}}) { asset { id name mediaType sizeBytes etag labelList { key value } } } }`,
        variables: { file: null },
      }),
    );
    form.set('map', JSON.stringify({ 0: ['variables.file'] }));
    form.set('0', new Blob([PNG], { type: 'image/png' }), 'g.png');
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}` },
      body: form,
    });
    const json = (await response.json()) as any;
    expect(json.errors, JSON.stringify(json.errors)).toBeUndefined();
    const asset = json.data.uploadAsset.asset;
    expect(asset).toMatchObject({
      name: 'g.png',
      mediaType: 'image/png',
      sizeBytes: PNG.length,
      labelList: [{ key: 'via', value: 'graphql' }],
    });

    const read = await t.graphql(`query($id: ID!) { asset(id: $id) { all: contentBase64 part: contentBase64(offset: 1, length: 3) } }`, {
      id: asset.id,
    });
    expect(Buffer.from(read.data.asset.all, 'base64').equals(PNG)).toBe(true);
    expect(Buffer.from(read.data.asset.part, 'base64').equals(PNG.subarray(1, 4))).toBe(true);
    const tooLong = await t.graphql(`query($id: ID!) { asset(id: $id) { contentBase64(length: 99999999) } }`, { id: asset.id });
    expect(tooLong.errors![0]!.extensions!.code).toBe('invalid_argument');

    const list = await t.graphql(`{ assets(first: 1, mediaType: "image/png") { nodes { id } pageInfo { hasNextPage } } }`);
    expect(list.data.assets.nodes[0].id).toBe(asset.id);
    const retired = await t.graphql(`mutation($id: ID!) { retireAsset(id: $id) { asset { version retiredAt } } }`, { id: asset.id });
    expect(retired.data.retireAsset.asset.version).toBe(2);
  });

  it('the avatar store is the same: an avatar is an asset row in the database', async () => {
    await insertModel(t, 'face-model');
    const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Face', config: { model: 'face-model' } } });
    expect(agent.status).toBe(201);
    const avatar = await fetch(`${t.url}/api/v1/agents/${agent.body.id}/avatar`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png', 'if-match': agent.headers.get('etag')! },
      body: PNG,
    });
    const body = (await avatar.json()) as any;
    const assetId = String(body.image_url).split('/')[4]!;
    const row = await t.app.deps.db.asset.findUniqueOrThrow({ where: { id: assetId } });
    expect(row.storage).toBe('database');
    expect((await t.rest('GET', `/api/v1/assets/${assetId}`)).body.media_type).toBe('image/png');
  });
});
