// The skills an agent configuration names, checked when it is written (an agent, a revision, a run's
// overrides): `builtin_skills` must name shipped skills, once each; `skills[]` must name skills of the
// caller's workspace, once each, that are not archived, with a pinned `revision_id` of that skill.
import { AppError, invalidArgument, quoteInput } from '../../lib/errors.js';
import { builtinSkills } from './builtin-skills.js';
import type { CallContext } from '../../services/call-context.js';
import type { AgentConfig } from './documents/config-schema.js';

/** A skill a configuration names; without `revision_id`, the skill's default revision when the run starts. */
export type SkillPin = NonNullable<AgentConfig['skills']>[number];

/** The members of a configuration that name skills. */
export type SkillsConfig = Pick<AgentConfig, 'skills' | 'builtin_skills'>;

export function configuredSkills(config: SkillsConfig): { pins: SkillPin[]; builtin: string[] } {
  return { pins: config.skills ?? [], builtin: config.builtin_skills ?? [] };
}

export function checkBuiltinSkillNames(names: string[], prefix: string): void {
  const known = builtinSkills();
  const seen = new Set<string>();
  names.forEach((name, index) => {
    const field = `${prefix}.builtin_skills[${index}]`;
    if (!known.has(name))
      throw invalidArgument(`${field} ${quoteInput(name)} is not a built-in skill (known: ${[...known.keys()].join(', ')})`, field);
    if (seen.has(name)) throw invalidArgument(`${field} ${quoteInput(name)} is listed twice`, field);
    seen.add(name);
  });
}

/**
 * Another workspace's skill, or a revision of another skill, answers as not existing (404) naming
 * the entry; an archived skill is refused (409 failed_precondition), as new runs of an archived
 * agent are. One query for the heads, one for the pinned revisions.
 */
export async function checkSkillReferences(call: CallContext, config: SkillsConfig, prefix: string): Promise<void> {
  const { pins, builtin } = configuredSkills(config);
  checkBuiltinSkillNames(builtin, prefix);
  if (!pins.length) return;
  const seen = new Set<string>();
  pins.forEach((pin, index) => {
    if (seen.has(pin.skill_id))
      throw invalidArgument(`skill ${quoteInput(pin.skill_id)} is listed twice`, `${prefix}.skills[${index}].skill_id`);
    seen.add(pin.skill_id);
  });
  const ws = call.actor.workspaceId;
  const heads = new Map(
    (
      await call.db.skill.findMany({
        where: { workspaceId: ws, id: { in: pins.map((p) => p.skill_id) } },
        select: { id: true, archivedAt: true },
      })
    ).map((head) => [head.id, head]),
  );
  const pinned = pins.flatMap((p) => (p.revision_id ? [p.revision_id] : []));
  const revisions = new Map(
    pinned.length
      ? (await call.db.skillRevision.findMany({ where: { workspaceId: ws, id: { in: pinned } }, select: { id: true, skillId: true } })).map(
          (r) => [r.id, r.skillId],
        )
      : [],
  );
  pins.forEach((pin, index) => {
    const field = `${prefix}.skills[${index}]`;
    const head = heads.get(pin.skill_id);
    if (!head) throw new AppError('not_found', `skill ${quoteInput(pin.skill_id)} not found`, { field });
    if (pin.revision_id && revisions.get(pin.revision_id) !== pin.skill_id)
      throw new AppError('not_found', `skill revision ${quoteInput(pin.revision_id)} not found`, { field });
    if (head.archivedAt)
      throw new AppError('failed_precondition', `skill ${quoteInput(pin.skill_id)} is archived; unarchive it or leave it out`, { field });
  });
}
