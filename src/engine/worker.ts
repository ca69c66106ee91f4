// Run workers: claim accepted runs from the database (FOR UPDATE SKIP LOCKED) under a lease that a
// heartbeat extends, execute them, and seal them. They wake on events — in-process when a run is
// created here, PostgreSQL NOTIFY across processes — never by polling the run path. A recovery
// timer only looks for leases that expired (a worker that died), and offers those runs again as a
// new attempt, or fails them when their attempts are spent.
//
// Stopping (SIGTERM/SIGINT, see src/lib/shutdown.ts) is a hand-over: the pool stops claiming at
// once, lets running attempts finish for a grace period, then aborts the rest and hands each run
// back (accepted again, the attempt not counted against its budget) with a NOTIFY, so another
// worker — or this process's next start, which scans for accepted runs — takes it at once
// instead of waiting for its lease to expire.
import { ledgerRows, newUsage, storedUsage, type Usage } from './usage.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Run } from '../services/rows.js';
import type { ModelMessage } from 'ai';
import type { PgListener } from '../lib/pg-listener.js';
import type { Deps } from '../services/deps.js';
import { runCallContext } from './run-context.js';
import { RunItemStream } from './items.js';
import { upgradeStoredHistory } from './stored-history.js';
import { describeError, isTransient } from './attempt-errors.js';
import { attemptId, executeAttempt } from './executor.js';
import type { RunEnvironments } from './environment-mounts.js';
import type { Pending } from './messages.js';
import {
  attemptsLeft,
  claimNamedRuns,
  claimQueued,
  claimRun,
  expiredRuns,
  extendLeases,
  handBack,
  requeueRun,
  RUN_ACCEPTED_CHANNEL,
  RUN_CANCEL_CHANNEL,
  RUN_STEER_CHANNEL,
  sealRun,
  takeOverExpired,
  type ClaimedRun,
  type SpanLink,
} from '../features/runs/run-lifecycle.js';
import { AttemptTrace } from './attempt-trace.js';
import { SteerHints } from './steer-hints.js';
import { newTraceId } from '../traces/run-tracer.js';
import { isAppError } from '../lib/errors.js';
import { announceRunChanged, announceThreadChanged } from '../services/event-topics.js';
import { runSealHooks } from '../services/run-hooks.js';
import { runMetrics } from '../lib/service-metrics.js';
import { itemsLeftInProgress, lastItemOrdinal } from '../features/runs/attempt-items.js';
import { runTail } from '../features/runs/run-tail.js';
import { localRuns } from '../features/runs/local-runs.js';
import { readEnvironmentMounts, type EnvironmentMount } from '../features/runs/run-members.js';
import { storedMcpHeaders, type McpHeaders } from '../features/threads/thread-documents.js';
const LEASE_MS = 30_000;
const HEARTBEAT_MS = 10_000;
const GRACE_MS = 5_000;
/** After the grace period, how long stop() waits for aborted attempts to write their hand-back. */
const HAND_BACK_WAIT_MS = 5_000;
/** The most runs one claim statement takes (the runs named while the last claim was under way). */
const MAX_CLAIM_BATCH = 32;
/** The abort reason of an attempt whose worker stops: its run is handed back, not cancelled. */
const HAND_OVER = new Error('the worker is stopping: the run is handed back');

/** A claimed run with what the claim read beside it: its thread's history, its parent's pending calls and last run span. */
interface Claimed {
  run: Run;
  history: ModelMessage[];
  mcpHeaders: McpHeaders;
  parentPending: Pending | null;
  parentEnvironmentMounts: EnvironmentMount[];
  parentSpan: SpanLink | null;
  steerPending: boolean;
}

export interface WorkerPoolOptions {
  concurrency: number;
  /** The process's notification listener (started before the pool). */
  listener: PgListener;
  leaseMs?: number;
  /** On stop, how long running attempts may take to finish before their runs are handed back. */
  graceMs?: number;
  /**
   * Admission: the most attempts preparing at once (claimed, not yet at their first model request).
   * Default: RUN_PREPARING_LIMIT (the database pool's size unless set: a preparation's statements then
   * seldom queue for the pool behind many others').
   */
  preparingLimit?: number;
  /** How long one preparation holds its place at most (default RUN_PREPARING_HOLD_MS). */
  preparingHoldMs?: number;
}

interface RunningAttempt {
  controller: AbortController;
  threadId: string;
  /** Settles when the attempt has sealed its run, handed it back, or given up. */
  finished: Promise<void>;
}

export class WorkerPool {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, RunningAttempt>();
  /** Threads whose attempt here reads its steer entries at its next model request. */
  private readonly steerHints = new SteerHints();
  /** Running attempts parked while they wait for another run (a subagent's): they hold no slot. */
  private parked = 0;
  private stopped = false;
  private stopping: Promise<void> | null = null;
  private claiming = false;
  private claimAgain = false;
  private claimLoopDone: Promise<void> = Promise.resolve();
  private recoveryTimer: NodeJS.Timeout | null = null;
  /** The heartbeat of the attempts running here (keepLeases), and whether its statement is out. */
  private leaseTimer: NodeJS.Timeout | null = null;
  private extending = false;
  /** Wake-ups (announced runs); dropped first when the pool stops. */
  private readonly wakeUnsubscribers: (() => void)[] = [];
  /** Cancel requests; kept while running attempts finish. */
  private readonly cancelUnsubscribers: (() => void)[] = [];
  private readonly leaseMs: number;
  /** Attempts claimed and not yet prepared: the admission bound (preparingLimit) counts them. */
  private preparing = 0;
  private readonly preparingLimit: number;
  private readonly preparingHoldMs: number;

  constructor(
    private readonly deps: Deps,
    private readonly options: WorkerPoolOptions,
  ) {
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.preparingLimit = Math.max(1, options.preparingLimit ?? deps.config.runPreparingLimit);
    this.preparingHoldMs = options.preparingHoldMs ?? deps.config.runPreparingHoldMs;
  }

  get busy() {
    return this.active.size;
  }

  /** What the metrics report of this pool: running attempts, the slots they hold, and the slots. */
  slots() {
    return { running: this.active.size, busy: this.active.size - this.parked, slots: this.options.concurrency };
  }

  /** Free slots: running attempts count, parked ones do not. */
  private get freeSlots() {
    return this.options.concurrency - (this.active.size - this.parked);
  }

  private get slotFree() {
    return this.freeSlots > 0;
  }

  /**
   * How many more runs may be claimed now: a free slot each, and a place among the attempts preparing.
   * Claims are batched (the runs named while a claim was under way go in one statement), so without
   * the second bound a burst of runs would all prepare at once — every one's statements meeting at
   * the database pool together, where claims one after another used to spread them out.
   */
  private get claimable() {
    return Math.min(this.freeSlots, this.preparingLimit - this.preparing);
  }

  /**
   * An attempt waits for another run (a subagent's child run): its slot is free until `work`
   * settles, so the pool claims in its place — the child itself, when every slot was busy. Without
   * this, parents would fill every slot with children nobody can claim. The attempt keeps its run,
   * heartbeat and abort signal; when it goes on, the pool may briefly run more attempts than its
   * concurrency (it claims nothing new until it is below it again).
   */
  private park<T>(work: Promise<T>): Promise<T> {
    this.parked += 1;
    // The child's announcement may have come while every slot was busy: look for accepted runs.
    this.wake();
    return work.finally(() => {
      this.parked -= 1;
    });
  }

  async start() {
    // A wake-up names its run; after a lost listener connection, notifications may have been
    // missed, so the pool scans.
    this.wakeUnsubscribers.push(
      await this.options.listener.subscribe(
        RUN_ACCEPTED_CHANNEL,
        (runId) => this.wake(runId || undefined),
        () => this.wake(),
      ),
    );
    this.cancelUnsubscribers.push(
      await this.options.listener.subscribe(RUN_CANCEL_CHANNEL, (runId) =>
        this.active.get(runId)?.controller.abort(new Error('cancelled')),
      ),
    );
    // A lost listener connection may have missed steer hints: every running attempt reads its steer entries once.
    this.cancelUnsubscribers.push(
      await this.options.listener.subscribe(
        RUN_STEER_CHANNEL,
        (threadId) => this.steerHints.hint(threadId),
        () => {
          for (const attempt of this.active.values()) this.steerHints.hint(attempt.threadId);
        },
      ),
    );
    this.wakeUnsubscribers.push(this.listen('runAccepted', (payload) => this.wake(payload.runId)));
    this.cancelUnsubscribers.push(
      this.listen('runCancelRequested', (payload) => this.active.get(payload.runId)?.controller.abort(new Error('cancelled'))),
    );
    this.scheduleRecovery();
    this.wake();
  }

  private listen(topic: 'runAccepted' | 'runCancelRequested', handler: (payload: { runId: string }) => void): () => void {
    const iterator = this.deps.events.subscribe(topic)[Symbol.asyncIterator]();
    let done = false;
    void (async () => {
      while (!done) {
        const next = await iterator.next();
        if (next.done) break;
        handler(next.value);
      }
    })();
    return () => {
      done = true;
      void iterator.return?.();
    };
  }

  /**
   * Claims accepted runs while there are free slots; coalesces concurrent wake-ups. A wake-up that
   * names a run (its creation event or NOTIFY) claims exactly that run — one statement, no scan,
   * no empty follow-up claim. A wake-up without one scans for the oldest accepted run until none
   * is left: at start, after a takeover, and when named runs arrived while every slot was busy.
   */
  wake(runId?: string) {
    if (this.stopped) return;
    if (runId) {
      // The in-process event and the NOTIFY both announce a run created here: claim it once.
      if (this.announced.has(runId)) return;
      this.announced.add(runId);
      if (this.announced.size > 1_000) this.announced.delete(this.announced.values().next().value!);
      this.named.push(runId);
      // A subscriber arriving while the run waits for its claim waits for the claim's outcome: when it
      // takes the run's first attempt here, the feed starts from what this process holds (local-runs.ts)
      // instead of reading an accepted run with no items. At 50 runs created at once, most subscribers
      // arrived while their run was still queued behind the others' claims and each read the database.
      localRuns(this.deps.events).claiming(runId);
    } else {
      this.scanNeeded = true;
    }
    this.claimLoop();
  }

  private readonly named: string[] = [];
  private readonly announced = new Set<string>();
  private scanNeeded = true;

  private claimLoop() {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    this.claimLoopDone = (async () => {
      try {
        do {
          this.claimAgain = false;
          while (!this.stopped && this.claimable > 0) {
            let claimed: Claimed[];
            if (this.named.length) {
              claimed = await this.claimNamed(this.named.splice(0, Math.min(this.claimable, MAX_CLAIM_BATCH)));
            } else if (this.scanNeeded) {
              const oldest = await this.claim();
              if (!oldest) this.scanNeeded = false;
              claimed = oldest ? [oldest] : [];
            } else break;
            for (const run of claimed) this.startAttempt(run);
          }
          // Every slot is busy (or the pool stops): the named runs wait in the database; a later scan
          // finds them. Runs waiting only for a place among those preparing stay named (their
          // subscribers keep waiting for the claim): a preparation that ends claims them.
          if (this.stopped || !this.slotFree) this.dropNamed();
        } while (this.claimAgain && !this.stopped);
      } catch (error) {
        this.deps.logger.error({ err: error }, 'claiming runs failed');
        this.dropNamed();
      } finally {
        this.claiming = false;
      }
    })();
  }

  /**
   * Claims named runs in one statement; runs of a workspace that limits its running runs go through
   * its queue (which may start its oldest waiting run instead). Each run's subscribers, waiting for
   * this claim, follow the run when its first attempt is claimed here, and read the database otherwise.
   */
  private async claimNamed(runIds: string[]): Promise<Claimed[]> {
    const local = localRuns(this.deps.events);
    // Still marked as queued for this claim (wake), unless something removed the mark since.
    for (const runId of runIds) local.claiming(runId);
    const claimed: ClaimedRun[] = [];
    try {
      const lease = { leaseOwner: this.id, leaseMs: this.leaseMs };
      const named = await claimNamedRuns(
        this.deps.db,
        runIds.map((runId) => ({ runId, attemptId: attemptId(), traceId: newTraceId() })),
        lease,
      );
      claimed.push(...named.claimed);
      for (const workspaceId of named.queuedWorkspaces) {
        // The runs already claimed above must start whatever happens here: a failed queue claim
        // leaves its run accepted, for a scan to find.
        const queued = await claimQueued(this.deps.db, workspaceId, { ...lease, attemptId: attemptId(), traceId: newTraceId() }).catch(
          (error: unknown) => {
            this.deps.logger.error({ err: error, workspaceId }, 'claiming a queued run failed');
            this.scanNeeded = true;
            return null;
          },
        );
        if (queued) claimed.push(queued);
      }
    } finally {
      const byId = new Map(claimed.map((c) => [c.run.id, c.run]));
      for (const runId of runIds) {
        const ours = byId.get(runId);
        local.claimed(runId, ours?.attempts === 1 ? { workspaceId: ours.workspaceId, leaseMs: this.leaseMs } : null);
        // Not claimed (a late wake-up for a run that is still running, e.g. its creation's NOTIFY
        // arriving after a retry forgot it; or a run a workspace's max_concurrent_runs holds back):
        // forget the wake-up too, or a later announcement of the run (its requeue's) would be taken
        // for a repeat of this one and dropped, leaving the run accepted.
        if (!ours) this.announced.delete(runId);
      }
    }
    return claimed.map((c) => this.adopt(c));
  }

  /**
   * Starts a claimed run's attempt. It holds a place among those preparing until it is prepared, starts
   * waiting on a server outside the service (a tool server listing its tools, a sandbox provisioned:
   * the bound is there for the database's pool, and a network wait of a few hundred ms per run would
   * otherwise cap how fast the pool starts runs), parks (an approved subagent call run before the first
   * model request waits for a child run, which needs a place of its own), or has held it for
   * preparingHoldMs (a preparation held up anywhere else must not hold back the runs of others).
   */
  private startAttempt(claimed: Claimed) {
    this.preparing += 1;
    let preparing = true;
    const prepared = () => {
      if (!preparing) return;
      preparing = false;
      clearTimeout(holdTimer);
      this.preparing -= 1;
      // A place is free: runs named meanwhile may be claimed now.
      if (this.named.length || this.scanNeeded) this.claimLoop();
    };
    const holdTimer = setTimeout(prepared, this.preparingHoldMs);
    holdTimer.unref();
    void this.execute(claimed, prepared);
  }

  /** Forgets the named runs not claimed: a scan claims them later, and their subscribers wait no more. */
  private dropNamed() {
    if (!this.named.length) return;
    const local = localRuns(this.deps.events);
    for (const runId of this.named) local.claimed(runId, null);
    this.named.length = 0;
    this.scanNeeded = true;
  }

  /** Claims the oldest accepted run; returns it with its thread's committed history. */
  private async claim(): Promise<Claimed | null> {
    const claimed = await claimRun(this.deps.db, {
      attemptId: attemptId(),
      leaseOwner: this.id,
      leaseMs: this.leaseMs,
      traceId: newTraceId(),
    });
    return claimed && this.adopt(claimed);
  }

  /** A claimed run as the attempt takes it: announced, counted as started, what the claim read decoded. */
  private adopt(claimed: ClaimedRun): Claimed {
    announceRunChanged(this.deps.events, claimed.run);
    // A run starts with its first attempt; later attempts (retries, takeovers, resumes) continue it.
    if (claimed.run.attempts === 1 && claimed.run.startedAt)
      runMetrics.started(claimed.run.agentId, claimed.run.createdAt, claimed.run.startedAt);
    return {
      run: claimed.run,
      history: upgradeStoredHistory(claimed.history),
      mcpHeaders: storedMcpHeaders(claimed.mcpHeaders),
      parentPending: claimed.parentPending as Pending | null,
      parentEnvironmentMounts: readEnvironmentMounts(claimed.parentEnvironmentMounts),
      parentSpan: claimed.parentSpan,
      steerPending: claimed.steerPending,
    };
  }

  /**
   * One heartbeat for every attempt running here: a timer while there are any, and one statement per
   * beat extending all their leases (extendLeases). A beat whose statement has not come back yet
   * (the database slow or away) is skipped rather than queued behind it.
   */
  private keepLeases() {
    this.leaseTimer ??= setInterval(() => void this.extendLeases(), Math.min(HEARTBEAT_MS, this.leaseMs / 3));
  }

  private stopLeases() {
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.leaseTimer = null;
  }

  private async extendLeases() {
    if (this.extending || !this.active.size) return;
    this.extending = true;
    try {
      const extended = await extendLeases(this.deps.db, [...this.active.keys()], this.id, this.leaseMs);
      const local = localRuns(this.deps.events);
      for (const runId of extended) local.extended(runId, this.leaseMs);
    } catch (error) {
      this.deps.logger.warn({ err: error, worker: this.id, runs: this.active.size }, 'lease heartbeat failed');
    } finally {
      this.extending = false;
    }
  }

  private async execute(
    { run, history, mcpHeaders, parentPending, parentEnvironmentMounts, parentSpan, steerPending }: Claimed,
    prepared: () => void,
  ) {
    const controller = new AbortController();
    let opened: RunItemStream | undefined;
    // False when the attempt ended by an error of its own (e.g. its seal failed with the database
    // away): its last changes may not be stored, so its live tail is kept for the next attempt.
    let committed = true;
    // The attempt's trace: its spans are held in memory and stored with the statement that ends it.
    const spans = this.deps.tracer.store;
    spans.open(run.id);
    const trace = new AttemptTrace(this.deps.tracer, run, run.attempts, parentSpan);
    let traceEnded = false;
    const endTrace = (outcome: Parameters<AttemptTrace['end']>[0]) => {
      if (traceEnded) return;
      traceEnded = true;
      trace.end(outcome);
    };
    let finish!: () => void;
    this.active.set(run.id, { controller, threadId: run.threadId, finished: new Promise<void>((resolve) => (finish = resolve)) });
    if (steerPending) this.steerHints.hint(run.threadId);
    this.keepLeases();
    try {
      // A first attempt starts with no items; later attempts continue after what earlier ones wrote.
      let lastOrdinal = run.attempts <= 1 ? 0 : await lastItemOrdinal(this.deps.db, run.id);
      const stale =
        run.attempts <= 1 ? [] : await toldStaleItems(this.deps, run, lastOrdinal, await itemsLeftInProgress(this.deps.db, run.id));
      lastOrdinal = Math.max(lastOrdinal, ...stale.map((item) => item.ordinal));
      const items = new RunItemStream(this.deps, run, run.attempts, lastOrdinal);
      opened = items;
      if (stale.length) items.adoptStale(stale);
      // A cancel that arrived between the claim and now.
      if (run.cancelRequestedAt) controller.abort(new Error('cancelled'));
      const call = runCallContext(this.deps, run);
      let result;
      // The attempt's environments once mounted: a run that ends by an error or a cancellation is
      // sealed here, so their seal work (skill sync's cleanup) runs here too.
      const attempt: { environments?: RunEnvironments } = {};
      // Counted by the attempt as it goes; an attempt that throws seals with what it consumed so far.
      const usage: Usage = newUsage();
      try {
        result = await executeAttempt({
          usage,
          deps: this.deps,
          call,
          run,
          attempt: run.attempts,
          signal: controller.signal,
          items,
          history,
          mcpHeaders,
          parentPending,
          parentEnvironmentMounts,
          park: (work) => {
            prepared();
            return this.park(work);
          },
          onEnvironments: (environments) => (attempt.environments = environments),
          onPrepared: prepared,
          onOutsideWait: prepared,
          steerHinted: () => this.steerHints.take(run.threadId),
          trace,
        });
      } catch (error) {
        if (controller.signal.reason === HAND_OVER) {
          endTrace({ kind: 'handed_back' });
          await this.handBack(run, items);
          return;
        }
        for (const open of items.openItems()) items.complete(open, {}, 'failed');
        if (controller.signal.aborted) {
          await attempt.environments?.sealed();
          result = { outcome: { kind: 'cancelled' as const }, newMessages: [], usage };
        } else if (isTransient(error) && attemptsLeft(run)) {
          items.open('error', { code: 'transient_error', message: describeError(error), retrying: true }, 'completed');
          await items.flush();
          endTrace({ kind: 'retry', message: describeError(error) });
          await spans.flush(run.id);
          await this.retry(run);
          return;
        } else {
          // Our own refusals keep their code (e.g. `disabled` when the model or provider was turned off).
          const code = isAppError(error) ? error.code : 'model_error';
          await attempt.environments?.sealed();
          items.open('error', { code, message: describeError(error) }, 'completed');
          result = { outcome: { kind: 'failed' as const, code, message: describeError(error) }, newMessages: [], usage };
        }
      }
      // Cancelled meanwhile (a hand-over abort that came too late to stop the attempt lets it seal).
      const cancelled = controller.signal.aborted && controller.signal.reason !== HAND_OVER;
      const outcome = cancelled && result.outcome.kind !== 'completed' ? { kind: 'cancelled' as const } : result.outcome;
      endTrace(outcome);
      if (outcome.kind === 'retry') return;
      const sealed = await sealRun(
        this.deps.db,
        run,
        outcome,
        result.newMessages,
        storedUsage(result.usage),
        ledgerRows(result.usage),
        await items.drain(),
        spans.drain(run.id),
      );
      if (sealed) {
        const { threadHasPending, ...row } = sealed;
        runMetrics.ended(row.agentId, row.status, row.startedAt, row.sealedAt);
        announceRunChanged(this.deps.events, row);
        // The seal appended to the thread's history, freed it and finished the run's inbox entries.
        announceThreadChanged(this.deps.events, row.threadId);
        // What features do on a seal (web push, finding analyses, inbox promotion) is theirs: the
        // hooks they registered run here in order, each failure logged and kept to itself.
        await runSealHooks({ call, run: row, threadHasPending }, this.deps.logger);
      } else {
        // Another worker took the run over while this one was cut off (its lease expired): the
        // seal, like every item write of this attempt, changed nothing.
        this.deps.logger.warn(
          { runId: run.id, attempt: run.attempts, worker: this.id },
          'attempt ended after its run moved on: nothing sealed',
        );
      }
    } catch (error) {
      committed = false;
      this.deps.logger.error({ err: error, runId: run.id }, 'run execution failed');
    } finally {
      // An attempt that ended some other way (an error of its own): its trace is stored as it stands.
      if (!traceEnded) {
        endTrace({ kind: 'failed', code: 'internal', message: 'the attempt ended without being sealed' });
      }
      await spans.flush(run.id);
      // Sealed, handed back or requeued: every item is committed, the tail is no longer needed (a
      // feed starting now reads the database: the entry goes before the tail).
      localRuns(this.deps.events).ended(run.id);
      opened?.close(committed);
      this.active.delete(run.id);
      if (!this.active.size) this.stopLeases();
      finish();
      prepared();
      this.claimLoop();
    }
  }

  /**
   * This worker is stopping and the attempt did not finish within the grace period: its open items
   * end as interrupted (the next attempt continues after them, ordinals gapless) and the run is
   * accepted again, in one statement with its NOTIFY (see `handBack` in the state machine).
   */
  private async handBack(run: Run, items: RunItemStream) {
    for (const open of items.openItems()) items.complete(open, { interrupted: true }, 'failed');
    const handed = await handBack(this.deps.db, run, await items.drain(), this.deps.tracer.store.drain(run.id));
    if (!handed) {
      this.deps.logger.warn({ runId: run.id, worker: this.id }, 'run not handed back: it was no longer held by this attempt');
      return;
    }
    this.announced.delete(run.id);
    announceRunChanged(this.deps.events, handed);
    this.deps.logger.info(
      { runId: run.id, attempt: run.attempts, worker: this.id },
      'run handed back on shutdown: accepted again for the next worker',
    );
  }

  /** A transient failure: offer the run again as a new attempt. */
  private async retry(run: Run) {
    // Forgotten first: the requeue's NOTIFY must wake this pool for the run again.
    this.announced.delete(run.id);
    const requeued = await requeueRun(this.deps.db, run.id);
    if (requeued) announceRunChanged(this.deps.events, requeued);
  }

  private scheduleRecovery() {
    if (this.stopped) return;
    this.recoveryTimer = setTimeout(() => {
      void this.recoverExpired()
        .catch((error) => this.deps.logger.error({ err: error }, 'recovering expired runs failed'))
        .finally(() => this.scheduleRecovery());
    }, this.leaseMs / 2);
    this.recoveryTimer.unref();
  }

  /** Runs whose worker died: a new attempt if attempts remain, else failed. */
  async recoverExpired() {
    const expired = await expiredRuns(this.deps.db);
    for (const run of expired) {
      const moved = await takeOverExpired(this.deps.db, run);
      if (moved) {
        this.deps.logger.warn({ runId: run.id, status: moved.status }, 'took over a run whose lease expired');
        announceRunChanged(this.deps.events, moved);
        if (moved.status === 'failed') announceThreadChanged(this.deps.events, moved.threadId);
      }
    }
    if (expired.length) this.wake();
  }

  /**
   * The hand-over: stop claiming at once (no wake-ups, no scans, no takeovers), let running
   * attempts finish within the grace period (they still obey cancel requests), then abort the rest
   * and hand their runs back. Resolves when every attempt has sealed or handed back its run (or,
   * should the database not answer, after a bounded wait: those runs fall back to their lease).
   */
  stop(): Promise<void> {
    this.stopping ??= this.handOver();
    return this.stopping;
  }

  private async handOver() {
    this.stopped = true;
    if (this.recoveryTimer) clearTimeout(this.recoveryTimer);
    for (const unsubscribe of this.wakeUnsubscribers) unsubscribe();
    // A claim already sent may still return a run: it joins the running attempts below.
    await this.claimLoopDone;
    // Runs named while waiting for a place among those preparing are left to the next worker.
    this.dropNamed();
    const graceMs = this.options.graceMs ?? GRACE_MS;
    if (this.active.size) {
      this.deps.logger.info({ worker: this.id, running: this.active.size, graceMs }, 'worker stopping: waiting for running attempts');
      await settledWithin(
        [...this.active.values()].map((attempt) => attempt.finished),
        graceMs,
      );
    }
    const left = [...this.active.values()];
    for (const attempt of left) attempt.controller.abort(HAND_OVER);
    if (
      left.length &&
      !(await settledWithin(
        left.map((attempt) => attempt.finished),
        HAND_BACK_WAIT_MS,
      ))
    ) {
      this.deps.logger.error(
        { worker: this.id, runIds: [...this.active.keys()] },
        'runs not handed back in time: they are taken over when their lease expires',
      );
    }
    for (const unsubscribe of this.cancelUnsubscribers) unsubscribe();
  }
}

/** Whether every promise settled within `ms` (the timer never keeps the process alive). */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

type StaleItem = Awaited<ReturnType<typeof itemsLeftInProgress>>[number];

/**
 * The items an earlier attempt left unfinished, as its subscribers last saw them. The database has
 * what that attempt's worker wrote before it died or lost the database; the run's live tail (in
 * Redis, when the service has it) may have more: text streamed after the last write, items opened
 * after it. Subscribers were told those, so the next attempt closes each item with the text they saw
 * rather than a shorter one (a client would see its text shrink), and stores the items they saw that
 * were never written (ordinals after `lastOrdinal`) instead of numbering its own items over them.
 * Without Redis, or when it cannot be read, the database's rows alone.
 */
async function toldStaleItems(
  deps: Deps,
  run: { id: string; workspaceId: string },
  lastOrdinal: number,
  stored: StaleItem[],
): Promise<StaleItem[]> {
  const told = await runTail(deps.events)
    .read(run.id)
    .catch(() => []);
  if (!told.length) return stored;
  const byOrdinal = new Map(told.map((item) => [item.ordinal, item]));
  const extends_ = (longer: unknown, shorter: unknown) => {
    const a = (longer ?? {}) as Record<string, unknown>;
    const b = (shorter ?? {}) as Record<string, unknown>;
    return Object.entries(b).every(([member, value]) =>
      typeof value === 'string' ? typeof a[member] === 'string' && (a[member] as string).startsWith(value) : member in a,
    );
  };
  const adopted = stored.map((row) => {
    const seen = byOrdinal.get(row.ordinal);
    return seen && seen.id === row.id && extends_(seen.content, row.content)
      ? { ...row, content: seen.content as typeof row.content }
      : row;
  });
  for (const seen of told)
    if (seen.ordinal > lastOrdinal)
      adopted.push({
        id: seen.id,
        runId: run.id,
        workspaceId: run.workspaceId,
        ordinal: seen.ordinal,
        kind: seen.kind,
        state: 'in_progress',
        content: seen.content as StaleItem['content'],
        contentRefs: (seen.contentRefs ?? {}) as StaleItem['contentRefs'],
        firstStreamId: seen.firstStreamId,
        lastStreamId: seen.lastStreamId,
        startedAt: new Date(seen.startedAt),
        endedAt: null,
      });
  return adopted.sort((a, b) => a.ordinal - b.ordinal);
}
