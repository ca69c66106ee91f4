// The environment driver: what an environment provider type does with an instance — provision it,
// run commands in it, read, write and list its files, stop it, destroy it. Services keep the
// environments (rows, status, permissions, audit) and call a driver only through this interface, so
// the platform tools (shell, files) and every environment type (local, container engine, hosted
// sandboxes) meet in one place. Paths are relative to the instance's working directory unless they
// are absolute inside the instance; a driver refuses a path that leaves the instance.
import type { OutboundPolicy } from '../lib/outbound-policy.js';

/** What a driver needs to reach an instance: its provider's settings and the template's config. */
export interface EnvironmentDriverContext {
  /** The provider's `config`. */
  providerConfig: Record<string, unknown>;
  /** The environment's template `config` (valid against the type's environment schema). */
  environmentConfig: Record<string, unknown>;
  /** The provider's decrypted credential, or null. */
  credential: Record<string, unknown> | null;
  /**
   * The fetch every HTTP request of the driver goes through: the deployment's outbound policy
   * (src/lib/outbound-policy.ts) checks each connection's address.
   */
  fetch: typeof fetch;
  /**
   * The deployment's outbound policy itself, for drivers with clients of their own (the container
   * engine's and Kubernetes' node:http requests and websockets, Modal's gRPC channels): each of
   * their connections goes through it, and a unix socket is reached only where it allows.
   */
  outbound: OutboundPolicy;
  /** The deployment's data directory (types that keep instances on this machine put them under it). */
  dataDir: string;
  /** The workspace the environment belongs to (types that reach the workspace's own resources, such as paired devices). */
  workspaceId?: string;
  /** Paired devices, for types that run instances on them (null where this process cannot reach devices). */
  devices?: import('./device-bridge.js').DeviceBridge | null;
}

/** An instance as the service remembers it: the driver's own id for it and where commands start. */
export interface EnvironmentInstance {
  instanceId: string;
  workingDirectory: string;
}

export interface ProvisionRequest {
  /** The environment's id: a type that names instances itself may use it. */
  environmentId: string;
  /** The template's `config`, already valid against the type's environment schema. */
  config: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface ExecRequest {
  /** A shell command line (run by `/bin/sh -c`), or an argument vector run without a shell. */
  command: string | readonly string[];
  /** Where it starts: relative to the working directory; default the working directory. */
  cwd?: string;
  /** Added to the instance's environment variables. */
  env?: Record<string, string>;
  /** Written to the command's standard input, then closed (absent: standard input is empty). */
  stdin?: string;
  /** The command is killed after this long; the result says `timed_out`. */
  timeoutMs: number;
  /** Bytes kept of standard output and of standard error each; the rest is counted, not kept. */
  maxOutputBytes: number;
  /** Aborting kills the command (a cancelled run). */
  signal?: AbortSignal;
  /** Called with each chunk of output as it arrives (a tool streaming progress), kept or not. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export interface ExecResult {
  /** The exit code, or null when a signal ended the command. */
  exitCode: number | null;
  /** The signal that ended it (a timeout, an abort, a stop), else null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Total bytes written to each stream (more than was kept when truncated). */
  stdoutBytes: number;
  stderrBytes: number;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

export interface FileEntry {
  /** The path relative to the listed directory. */
  path: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  sizeBytes: number;
  modifiedAt: string;
}

export interface EnvironmentDriver {
  /** Creates the instance (idempotent for the same environment id). */
  provision(ctx: EnvironmentDriverContext, request: ProvisionRequest): Promise<EnvironmentInstance>;
  exec(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, request: ExecRequest): Promise<ExecResult>;
  /** At most `maxBytes` bytes of a file; `truncated` says there were more. */
  readFile(
    ctx: EnvironmentDriverContext,
    instance: EnvironmentInstance,
    path: string,
    options: { maxBytes: number },
  ): Promise<{ content: Buffer; sizeBytes: number; truncated: boolean }>;
  /** Creates or replaces a file, creating its parent directories. */
  writeFile(
    ctx: EnvironmentDriverContext,
    instance: EnvironmentInstance,
    path: string,
    content: Buffer | string,
  ): Promise<{ sizeBytes: number }>;
  /** A directory's entries (recursively up to `depth` levels, at most `limit` entries). */
  listFiles(
    ctx: EnvironmentDriverContext,
    instance: EnvironmentInstance,
    path: string,
    options: { depth: number; limit: number },
  ): Promise<{ entries: FileEntry[]; truncated: boolean }>;
  /** Ends whatever runs in the instance; its files stay. */
  stop(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): Promise<void>;
  /**
   * Starts a stopped instance again with its files as they were (absent: the type cannot restart a
   * stopped instance). Answers the instance, whose working directory may have changed.
   */
  start?(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): Promise<EnvironmentInstance>;
  /** Removes the instance and its files; destroying what is already gone succeeds. */
  destroy(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): Promise<void>;
}

/** A problem the caller can act on (a path outside the instance, a missing file): services answer it as invalid input or not found. */
export class EnvironmentDriverError extends Error {
  constructor(
    readonly reason: 'invalid_path' | 'not_found' | 'not_a_file' | 'not_a_directory' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'EnvironmentDriverError';
  }
}
