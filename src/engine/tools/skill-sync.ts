// Skill sync (`skill_sync {mode, overwrite, cleanup}`): the run's skills as files in its environment,
// so commands can use a skill's scripts and references. The files are written before the first
// platform tool call of an attempt that works in an environment (once per environment and attempt);
// with `cleanup` they are removed again when the attempt seals the run, however it ends (completed,
// waiting, failed, cancelled: the executor runs the seal work on its own endings, the worker on errors
// and cancellations).
import { posix } from 'node:path';
import type { RunSkill } from '../../features/runs/run-skills.js';
import type { RunEnvironments } from '../environment-mounts.js';

export const SKILLS_DIRECTORY = '.skills';

export interface SkillSyncSettings {
  mode?: 'shared' | 'isolated';
  overwrite?: boolean;
  cleanup?: boolean;
}

/** What skill sync needs of an opened environment (a platform tool's workspace). */
export interface SyncTarget {
  environment: { id: string };
  at(path: string): string;
  readFile(path: string, options: { maxBytes: number }): Promise<unknown>;
  writeFile(path: string, content: string): Promise<unknown>;
  exec(request: { command: readonly string[]; timeoutMs: number; maxOutputBytes: number }): Promise<{ exitCode: number | null }>;
}

/** `shared`: one directory per skill, shared by the runs working in the environment; `isolated`: the run's own. */
export function skillsRoot(mode: SkillSyncSettings['mode'], runId: string): string {
  return mode === 'isolated' ? posix.join(SKILLS_DIRECTORY, runId) : SKILLS_DIRECTORY;
}

/** A skill's `SKILL.md`: its name and description as front matter, then its instructions (the agent-skill layout). */
export function skillMarkdown(skill: RunSkill): string {
  const { name, description, instructions } = skill.content;
  return `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n\n${instructions}\n`;
}

/** Skill names become directory names: only plain path segments (a name like `..` is skipped, never followed). */
const plainName = (skill: RunSkill) => /^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(skill.name);

const exists = (target: SyncTarget, path: string) =>
  target.readFile(path, { maxBytes: 0 }).then(
    () => true,
    () => false,
  );

export class SkillSync {
  /** Per environment: the attempt's sync into it (written once, shared by concurrent calls). */
  private readonly synced = new Map<string, Promise<void>>();

  constructor(
    private readonly settings: SkillSyncSettings,
    private readonly runId: string,
    private readonly skills: () => Promise<RunSkill[]>,
    private readonly environments: RunEnvironments,
  ) {}

  /** Writes the skills into the target's environment unless this attempt already did. */
  ensure(target: SyncTarget): Promise<void> {
    let sync = this.synced.get(target.environment.id);
    if (!sync) {
      sync = this.write(target);
      this.synced.set(target.environment.id, sync);
      if (this.settings.cleanup) this.environments.onSeal(() => this.remove(target));
    }
    return sync;
  }

  private async write(target: SyncTarget) {
    const root = skillsRoot(this.settings.mode, this.runId);
    for (const skill of (await this.skills()).filter(plainName)) {
      const files = [{ path: 'SKILL.md', content: skillMarkdown(skill) }, ...skill.content.files];
      for (const file of files) {
        const path = target.at(posix.join(root, skill.name, file.path));
        // Without `overwrite` a file already there (an earlier run's, or edited by a command) stays.
        if (!this.settings.overwrite && (await exists(target, path))) continue;
        await target.writeFile(path, file.content);
      }
    }
  }

  /** Removes what this run's sync placed: its own directory (isolated), or its skills' directories (shared). */
  private async remove(target: SyncTarget) {
    const root = skillsRoot(this.settings.mode, this.runId);
    const paths =
      this.settings.mode === 'isolated'
        ? [target.at(root)]
        : (await this.skills()).filter(plainName).map((skill) => target.at(posix.join(root, skill.name)));
    if (paths.length) await target.exec({ command: ['rm', '-rf', '--', ...paths], timeoutMs: 60_000, maxOutputBytes: 4096 });
  }
}
