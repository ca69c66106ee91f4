// A run's environments (`environment_mounts`): where its tools run commands and keep files. The run
// keeps what an earlier attempt mounted; a run that continues another (a resume, a fork) works in
// the environments its parent mounted; otherwise the agent configuration's
// `default_environment_template_id` makes one, mounted as `default` — at the start of the run, or
// with `lazy_environment: true` only when something first needs it (`RunEnvironments.open`). Tools
// that work in an environment (the platform tools) take it from here, so they never provision or
// look environments up themselves.
import { recordEnvironmentMounts } from '../features/runs/run-lifecycle.js';
import { parentEnvironmentMounts } from '../features/runs/run-inheritance.js';
import { readEnvironmentMounts, type EnvironmentMount } from '../features/runs/run-members.js';
import { createEnvironment, openEnvironment, type OpenEnvironment } from '../features/environments/environments.js';
import { AppError } from '../lib/errors.js';
import type { RunAgentConfig } from './agent-config.js';
import type { Run } from '../services/rows.js';
import type { CallContext } from '../services/call-context.js';
import type { Deps } from '../services/deps.js';

/** What mounting needs of the attempt (a subset of the execution context). */
export interface MountContext {
  deps: Deps;
  call: CallContext;
  run: Run;
  /** The parent run's environment mounts as the run's claim read them (read again when absent). */
  parentEnvironmentMounts?: EnvironmentMount[];
  /** Told before the attempt waits for a sandbox to be provisioned (see ExecutionContext.onOutsideWait). */
  onOutsideWait?: () => void;
}

/** The mount name of the environment the default template makes. */
export const DEFAULT_MOUNT = 'default';

export class RunEnvironments {
  private provisioning: Promise<EnvironmentMount> | null = null;
  /** Work to do in the environments when the attempt seals the run (skill sync's cleanup). */
  private readonly sealHooks: (() => Promise<void>)[] = [];

  constructor(
    private readonly ctx: MountContext,
    private readonly templateId: string | null,
    private current: EnvironmentMount[],
  ) {}

  /** Whether the run has an environment to work in, or can make one on first need (its default template). */
  get available(): boolean {
    return this.current.length > 0 || this.templateId !== null;
  }

  /** The run's mounts as they are now (the run view shows the recorded ones). */
  get mounts(): readonly EnvironmentMount[] {
    return this.current;
  }

  /**
   * The mounted environment `name` (default: the first mount, else `default`), opened for work;
   * the default one is provisioned now when the run has none yet (lazy environments). Concurrent
   * first needs share one provisioning.
   */
  async open(name?: string): Promise<OpenEnvironment & { mount: EnvironmentMount }> {
    let mount = name ? this.current.find((m) => m.name === name) : this.current[0];
    if (!mount && (name === undefined || name === DEFAULT_MOUNT) && this.templateId) {
      this.provisioning ??= this.provisionDefault();
      mount = await this.provisioning;
    }
    if (!mount)
      throw new AppError('failed_precondition', name ? `the run has no environment mounted as ${name}` : 'the run has no environment');
    return { ...(await openEnvironment(this.ctx.call, mount.environment_id)), mount };
  }

  /** Adds work for when the attempt seals the run (once per hook). */
  onSeal(hook: () => Promise<void>) {
    this.sealHooks.push(hook);
  }

  /**
   * Runs the seal hooks. Their failures do not change how the run ends: the run's outcome is
   * decided, and what is left behind stays inspectable in the environment.
   */
  async sealed(): Promise<void> {
    for (const hook of this.sealHooks.splice(0)) await hook().catch(() => undefined);
  }

  /** Makes the default environment from the template and records the mount on the run. */
  async provisionDefault(): Promise<EnvironmentMount> {
    const environment = await createEnvironment(this.ctx.call, { templateId: this.templateId });
    if (environment.status !== 'ready')
      throw new AppError(
        'failed_precondition',
        `environment ${environment.id} could not be provisioned: ${environment.failureMessage ?? environment.status}`,
      );
    const mount: EnvironmentMount = {
      environment_id: environment.id,
      name: DEFAULT_MOUNT,
      working_directory: environment.workingDirectory,
    };
    this.current = [...this.current, mount];
    await recordEnvironmentMounts(this.ctx.deps.db, this.ctx.run.id, this.current);
    return mount;
  }
}

/**
 * The attempt's environments: the run's recorded mounts, its parent's (a continuation keeps working
 * where its parent did), or — without `lazy_environment` — the default template's, provisioned now.
 * A disabled template or provider fails the run with `disabled`.
 */
export async function mountEnvironments(ctx: MountContext, config: RunAgentConfig): Promise<RunEnvironments> {
  const { call, run, deps } = ctx;
  const templateId = config.default_environment_template_id ?? null;
  let mounts = readEnvironmentMounts(run.environmentMounts);
  if (!mounts.length && run.parentRunId) {
    mounts = ctx.parentEnvironmentMounts ?? (await parentEnvironmentMounts(call, run.parentRunId));
    if (mounts.length) await recordEnvironmentMounts(deps.db, run.id, mounts);
  }
  const environments = new RunEnvironments(ctx, templateId, mounts);
  if (!mounts.length && templateId && !config.lazy_environment) {
    ctx.onOutsideWait?.();
    await environments.provisionDefault();
  }
  return environments;
}
