// Skills in runs, by progressive disclosure (as agent-skill systems do it): the system prompt carries
// a short catalogue — each skill's name and description — and the model loads what it needs:
// `load_skill` returns a skill's instructions and lists its files, `read_skill_file` returns one file.
// The skills are resolved once per run (its first attempt) and recorded on the run, so later attempts
// use the same revisions and the run's agent view shows them.
import type { JSONSchema7 } from '@ai-sdk/provider';
import { recordResolvedSkills } from '../../features/runs/run-lifecycle.js';
import { loadRecordedSkills, recordedForm, resolveRunSkills, storedResolvedSkills, type RunSkill } from '../../features/runs/run-skills.js';
import type { RunTool, ToolSource, ToolSourceContext } from './tool.js';

export const LOAD_SKILL_TOOL = 'load_skill';
export const READ_SKILL_FILE_TOOL = 'read_skill_file';

const attemptSkills = new WeakMap<object, Promise<RunSkill[]>>();

/**
 * The run's skills for this attempt (resolved or loaded once per attempt, shared by the sources that
 * need them: these tools and skill sync).
 */
export function runSkillsOf(context: Pick<ToolSourceContext, 'deps' | 'call' | 'run' | 'config'>): Promise<RunSkill[]> {
  let skills = attemptSkills.get(context.run);
  if (!skills) {
    skills = runSkills(context);
    attemptSkills.set(context.run, skills);
  }
  return skills;
}

/** The run's skills: as recorded by an earlier attempt, or resolved now and recorded. */
async function runSkills({ deps, call, run, config }: Pick<ToolSourceContext, 'deps' | 'call' | 'run' | 'config'>): Promise<RunSkill[]> {
  // Recorded as the run's own column (a worker's statement, like its memory mounts).
  const recorded = storedResolvedSkills(run.resolvedSkills);
  if (recorded) return loadRecordedSkills(call, recorded);
  const skills = await resolveRunSkills(call, config);
  if (skills.length) await recordResolvedSkills(deps.db, run.id, recordedForm(skills));
  return skills;
}

/** The passage of the system prompt that lists the skills (only names and descriptions). */
export function skillCatalogue(skills: Pick<RunSkill, 'name' | 'content'>[]): string {
  return [
    '# Skills',
    `Skills are instructions for particular kinds of tasks. When a task matches a skill's description, call \`${LOAD_SKILL_TOOL}\` ` +
      `with the skill's name before you start and follow the instructions it returns; read the skill's files with ` +
      `\`${READ_SKILL_FILE_TOOL}\` when its instructions refer to them.`,
    '',
    'Available skills:',
    ...skills.map((skill) => `- ${skill.name}: ${skill.content.description || '(no description)'}`),
  ].join('\n');
}

function find(skills: Map<string, RunSkill>, name: unknown): RunSkill {
  const skill = skills.get(String(name ?? ''));
  if (!skill) throw new Error(`there is no skill named ${JSON.stringify(name)}; the skills are: ${[...skills.keys()].join(', ')}`);
  return skill;
}

export const skillTools: ToolSource = async (context) => {
  const skills = await runSkillsOf(context);
  if (!skills.length) return [];
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const names: JSONSchema7 = { type: 'string', enum: [...byName.keys()] };
  const loadSkill: RunTool = {
    name: LOAD_SKILL_TOOL,
    description:
      "Load a skill by name: returns the skill's instructions (markdown) and the list of its files. " +
      'The skills and what each is for are listed in the system prompt.',
    inputSchema: { type: 'object', properties: { name: names }, required: ['name'] },
    permission: 'allow',
    offered: true,
    instructions: skillCatalogue(skills),
    execution: {
      kind: 'server',
      execute: async (args) => {
        const { content } = find(byName, args.name);
        return {
          name: content.name,
          description: content.description,
          instructions: content.instructions,
          files: content.files.map((file) => ({
            path: file.path,
            media_type: file.media_type,
            size_bytes: Buffer.byteLength(file.content),
          })),
        };
      },
    },
  };
  const readSkillFile: RunTool = {
    name: READ_SKILL_FILE_TOOL,
    description: `Read one file of a skill (a path that ${LOAD_SKILL_TOOL} listed for it).`,
    inputSchema: {
      type: 'object',
      properties: { skill: names, path: { type: 'string', description: 'the file path, as listed by load_skill' } },
      required: ['skill', 'path'],
    },
    permission: 'allow',
    offered: true,
    execution: {
      kind: 'server',
      execute: async (args) => {
        const { name, content } = find(byName, args.skill);
        const file = content.files.find((f) => f.path === args.path);
        if (!file) {
          const paths = content.files.map((f) => f.path);
          throw new Error(
            `the skill ${name} has no file ${JSON.stringify(args.path)}; ${paths.length ? `its files are: ${paths.join(', ')}` : 'it has no files'}`,
          );
        }
        return { skill: name, path: file.path, media_type: file.media_type, content: file.content };
      },
    },
  };
  return [loadSkill, readSkillFile];
};
