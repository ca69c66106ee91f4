// Skills: revisioned heads whose revisions hold a skill's content — name, description,
// instructions (markdown) and optional files — the shape agent frameworks use for skills.
import type { Skill, SkillRevision } from '../../generated/prisma/client.js';
import Type, { type Static } from 'typebox';
import { invalidArgument, quoteInput } from '../../lib/errors.js';
import { readDocument } from '../../lib/json-documents.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import {
  changeHead,
  createHead,
  headList,
  headOperations,
  publishRevision,
  validateHeadPatch,
  type HeadListArgs,
  type RevisionedKind,
} from '../../services/revisioned.js';
import { listQuery } from '../../services/list-query.js';

export const SKILLS: RevisionedKind<Skill, SkillRevision> = {
  kind: 'skill',
  table: 'skills',
  revisionIdKind: 'skillRevision',
  headDelegate: (db) => db.skill,
  revisionDelegate: (db) => db.skillRevision,
  headKey: 'skillId',
  contentField: 'content',
};

export const {
  get: getSkill,
  archive: archiveSkill,
  unarchive: unarchiveSkill,
  setDefault: setDefaultSkillRevision,
  getRevision: getSkillRevision,
  listRevisions: listSkillRevisions,
} = headOperations(SKILLS);

const MAX_FILES = 64;
const MAX_TOTAL_BYTES = 1024 * 1024;

/** A skill revision's content (`skill_revisions.content`), as normalizeSkillContent stores it. */
const SkillContent = Type.Object({
  name: Type.String(),
  description: Type.String(),
  instructions: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), content: Type.String(), media_type: Type.String() })),
});
// A type alias (Static), not an interface: a plain JSON document, assignable where revisions take `Record<string, unknown>`.
export type SkillContent = Static<typeof SkillContent>;

/** A stored revision's content, checked. */
export const skillContent = (revision: Pick<SkillRevision, 'content'>): SkillContent =>
  readDocument(SkillContent, revision.content, 'skill_revisions.content');

/** Validates skill content and returns it canonical (files sorted by path, defaults filled). */
export function normalizeSkillContent(value: unknown, prefix = 'content'): SkillContent {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`${prefix} must be an object`, prefix);
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!['name', 'description', 'instructions', 'files'].includes(key))
      throw invalidArgument(`${prefix}.${key} is not a known field`, `${prefix}.${key}`);
  }
  if (typeof input.name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,63}$/.test(input.name)) {
    throw invalidArgument(`${prefix}.name must be 1 to 64 characters of a-z, 0-9 and -, starting with a letter or digit`, `${prefix}.name`);
  }
  if (input.description !== undefined && (typeof input.description !== 'string' || input.description.length > 1024)) {
    throw invalidArgument(`${prefix}.description must be a string of at most 1024 characters`, `${prefix}.description`);
  }
  if (typeof input.instructions !== 'string' || input.instructions.length > 200_000) {
    throw invalidArgument(`${prefix}.instructions (markdown) is required, at most 200000 characters`, `${prefix}.instructions`);
  }
  const files = input.files ?? [];
  if (!Array.isArray(files) || files.length > MAX_FILES)
    throw invalidArgument(`${prefix}.files must be a list of at most ${MAX_FILES} files`, `${prefix}.files`);
  let total = 0;
  const seen = new Set<string>();
  const normalized = files.map((file: unknown, index) => {
    const field = `${prefix}.files[${index}]`;
    if (file === null || typeof file !== 'object' || Array.isArray(file)) throw invalidArgument(`${field} must be an object`, field);
    const { path, content, media_type: mediaType, ...rest } = file as Record<string, unknown>;
    if (Object.keys(rest).length)
      throw invalidArgument(`${field}.${Object.keys(rest)[0]} is not a known field`, `${field}.${Object.keys(rest)[0]}`);
    if (
      typeof path !== 'string' ||
      !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(path) ||
      path.split('/').some((part) => part === '..' || part === '.') ||
      path.length > 512
    ) {
      throw invalidArgument(`${field}.path must be a relative path without . or .. segments`, `${field}.path`);
    }
    if (seen.has(path)) throw invalidArgument(`${field}.path ${quoteInput(path)} appears twice`, `${field}.path`);
    seen.add(path);
    if (typeof content !== 'string') throw invalidArgument(`${field}.content must be a string`, `${field}.content`);
    if (mediaType !== undefined && (typeof mediaType !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(mediaType)))
      throw invalidArgument(`${field}.media_type must be a media type`, `${field}.media_type`);
    total += Buffer.byteLength(content);
    return { path, content, media_type: (mediaType as string | undefined) ?? 'text/plain' };
  });
  if (total > MAX_TOTAL_BYTES) throw invalidArgument(`${prefix}.files may hold at most ${MAX_TOTAL_BYTES} bytes in all`, `${prefix}.files`);
  normalized.sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    name: input.name,
    description: (input.description as string | undefined) ?? '',
    instructions: input.instructions,
    files: normalized,
  };
}

export async function createSkill(
  call: CallContext,
  input: { name: unknown; description?: unknown; labels?: unknown; content?: unknown; note?: unknown },
) {
  return createHead(SKILLS, call, input, { content: () => normalizeSkillContent(input.content) });
}

export async function listSkills(call: CallContext, args: HeadListArgs) {
  requirePermission(call.actor, 'read');
  const query = listQuery(headList('skills'), call, args);
  return query.page(await call.db.skill.findMany(query.findArgs()));
}

export const updateSkill = (
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  patch: { name?: unknown; description?: unknown; labels?: unknown },
) => changeHead(SKILLS, call, id, ifMatch, 'update', () => validateHeadPatch(patch));

export async function publishSkillRevision(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  input: { content?: unknown; note?: unknown; makeDefault?: boolean | null },
) {
  requirePermission(call.actor, 'write');
  const content = normalizeSkillContent(input.content);
  return publishRevision(SKILLS, call, id, ifMatch, {
    content: content,
    note: input.note,
    makeDefault: input.makeDefault,
  });
}
