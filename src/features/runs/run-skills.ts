// The skills of a run, resolved when its first attempt is prepared: each of `skills[]` at its pinned
// revision or, without a pin, at the skill's default revision at that moment; then `builtin_skills`.
// The resolved list is recorded on the run, so later attempts use exactly the same revisions and the
// run's agent view shows them. Skill revisions never change, so their contents are kept by id.
import Type, { type Static } from 'typebox';
import { AppError, quoteInput } from '../../lib/errors.js';
import { readDocument } from '../../lib/json-documents.js';
import { builtinSkills } from '../agents/builtin-skills.js';
import type { CallContext } from '../../services/call-context.js';
import { configuredSkills, type SkillsConfig } from '../agents/skill-references.js';
import { skillContent, type SkillContent } from '../agents/skills.js';

/** Where a run's skill comes from: the run's workspace, or shipped with the service. */
export const SKILL_SOURCES = ['workspace', 'builtin'] as const;

/** One entry of a run's resolved skill list, as the run records it (`runs.resolved_skills`) and its agent view shows it. */
export const ResolvedSkill = Type.Object({
  /** `workspace`: a skill of the run's workspace; `builtin`: shipped with the service (no ids). */
  source: Type.Enum(SKILL_SOURCES),
  skill_id: Type.Union([Type.String(), Type.Null()]),
  revision_id: Type.Union([Type.String(), Type.Null()]),
  /** The name the model knows the skill by (its content's `name`). */
  name: Type.String(),
});
export type ResolvedSkill = Static<typeof ResolvedSkill>;
const ResolvedSkills = Type.Array(ResolvedSkill);

/** A run's recorded skill list; null while a run with skills has not resolved them. */
export const storedResolvedSkills = (value: unknown): ResolvedSkill[] | null =>
  value === null || value === undefined ? null : readDocument(ResolvedSkills, value, 'runs.resolved_skills');

export interface RunSkill extends ResolvedSkill {
  content: SkillContent;
}

interface StoredRevision {
  skillId: string;
  content: SkillContent;
}

const revisions = new Map<string, StoredRevision>();
const MAX_CACHED_REVISIONS = 1_000;

/** Skill revisions of the caller's workspace by id, from the cache or one query. */
async function skillRevisions(call: CallContext, ids: string[]): Promise<Map<string, StoredRevision>> {
  const missing = ids.filter((id) => !revisions.has(id));
  if (missing.length) {
    const rows = await call.db.skillRevision.findMany({
      where: { workspaceId: call.actor.workspaceId, id: { in: missing } },
      select: { id: true, skillId: true, content: true },
    });
    for (const row of rows) {
      if (revisions.size >= MAX_CACHED_REVISIONS) revisions.delete(revisions.keys().next().value!);
      revisions.set(row.id, { skillId: row.skillId, content: skillContent(row) });
    }
  }
  return new Map(ids.flatMap((id) => (revisions.has(id) ? [[id, revisions.get(id)!] as const] : [])));
}

const failure = (code: 'not_found' | 'failed_precondition', message: string) => new AppError(code, message);

/**
 * Resolves the configured skills (the run's agent view: revision configuration with overrides).
 * A skill that is no longer usable fails the run with a message naming it: archived →
 * `failed_precondition`; not in the run's workspace, or a pin of another skill → `not_found`; two
 * skills with the same name → `failed_precondition` (the model could not tell them apart).
 */
export async function resolveRunSkills(call: CallContext, config: SkillsConfig): Promise<RunSkill[]> {
  const { pins, builtin } = configuredSkills(config);
  const resolved: RunSkill[] = [];
  if (pins.length) {
    const heads = new Map(
      (
        await call.db.skill.findMany({
          where: { workspaceId: call.actor.workspaceId, id: { in: pins.map((p) => p.skill_id) } },
          select: { id: true, archivedAt: true, defaultRevisionId: true },
        })
      ).map((head) => [head.id, head]),
    );
    const revisionIds = pins.map((pin, index) => {
      const head = heads.get(pin.skill_id);
      const where = `skills[${index}]`;
      if (!head) throw failure('not_found', `skill ${quoteInput(pin.skill_id)} (${where}) not found in the run's workspace`);
      if (head.archivedAt)
        throw failure('failed_precondition', `skill ${quoteInput(pin.skill_id)} (${where}) is archived; unarchive it or remove it`);
      const revisionId = pin.revision_id ?? head.defaultRevisionId;
      if (!revisionId) throw failure('not_found', `skill ${quoteInput(pin.skill_id)} (${where}) has no default revision`);
      return revisionId;
    });
    const found = await skillRevisions(call, revisionIds);
    pins.forEach((pin, index) => {
      const revisionId = revisionIds[index]!;
      const revision = found.get(revisionId);
      if (revision?.skillId !== pin.skill_id)
        throw failure(
          'not_found',
          `skill revision ${quoteInput(revisionId)} (skills[${index}]) not found for skill ${quoteInput(pin.skill_id)}`,
        );
      resolved.push({
        source: 'workspace',
        skill_id: pin.skill_id,
        revision_id: revisionId,
        name: revision.content.name,
        content: revision.content,
      });
    });
  }
  const shipped = builtin.length ? builtinSkills() : new Map<string, SkillContent>();
  for (const name of builtin) {
    const content = shipped.get(name);
    // Checked when the configuration was written; a built-in removed by an upgrade fails clearly.
    if (!content) throw failure('not_found', `built-in skill ${quoteInput(name)} does not exist in this version of the service`);
    resolved.push({ source: 'builtin', skill_id: null, revision_id: null, name, content });
  }
  const names = new Set<string>();
  for (const skill of resolved) {
    if (names.has(skill.name))
      throw failure(
        'failed_precondition',
        `two of the run's skills are named ${quoteInput(skill.name)}; the model could not tell them apart`,
      );
    names.add(skill.name);
  }
  return resolved;
}

/** A recorded list with its contents again (a later attempt of the same run). */
export async function loadRecordedSkills(call: CallContext, recorded: ResolvedSkill[]): Promise<RunSkill[]> {
  const found = await skillRevisions(
    call,
    recorded.flatMap((skill) => (skill.revision_id ? [skill.revision_id] : [])),
  );
  const shipped = builtinSkills();
  return recorded.map((skill) => {
    const content = skill.revision_id ? found.get(skill.revision_id)?.content : shipped.get(skill.name);
    if (!content) throw failure('not_found', `skill ${quoteInput(skill.skill_id ?? skill.name)} is no longer available`);
    return { ...skill, content };
  });
}

/** The list as recorded and shown (without contents). */
export const recordedForm = (skills: RunSkill[]): ResolvedSkill[] =>
  skills.map(({ source, skill_id, revision_id, name }) => ({ source, skill_id, revision_id, name }));
