// The tool interface: what a run's model can call, and how each call is carried out. Every kind of
// tool — client tools, `ask_user`, memory tools today; MCP connections, the web toolset, platform
// tools, skills and plugins next — is a `ToolSource` that turns the agent's configuration into
// `RunTool`s. The turn loop (executor.ts) never names a kind: it offers the toolset to the model
// and hands the calls to dispatch.ts, which decides by `permission` and `execution` alone.
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { Static, TObject } from 'typebox';
import type { Run } from '../../services/rows.js';
import type { CallContext } from '../../services/call-context.js';
import type { Deps } from '../../services/deps.js';
import type { RunAgentConfig } from '../agent-config.js';
import type { RunItemStream } from '../items.js';
import type { RunEnvironments } from '../environment-mounts.js';
import type { Mount } from '../memory-mounts.js';
import type { Usage } from '../usage.js';
import type { McpHeaders } from '../../features/threads/thread-documents.js';

/** allow: carried out at once; ask: the run waits for an approval first; deny: refused, and the model is told. */
export type ToolPermission = 'allow' | 'ask' | 'deny';

/** What a server-side execution knows about the call it carries out. */
export interface ToolCallContext {
  toolCallId: string;
  /** The attempt's abort signal (cancel, hand-over): long executions stop with it. */
  signal: AbortSignal;
  /** The call's trace span (a subagent's child run continues the trace beneath it). */
  span?: { traceId: string; spanId: string };
}

export type ToolExecution =
  /** Carried out by the server during the attempt; the result (or the error's message) goes back to the model. */
  | { kind: 'server'; execute(args: Record<string, unknown>, call: ToolCallContext): Promise<unknown> }
  /** Handed to the client: the run waits (`client_tool`) and its successor starts from the client's result. */
  | { kind: 'client'; title: string }
  /** A question to the user: the run waits (`user_question`) and its successor starts from the answer. */
  | { kind: 'question' };

export interface RunTool {
  /**
   * The tool's name as its source gives it. The toolset makes names unique within the run: when two
   * tools share a name, the server-side ones are renamed `<namespace>__<name>` (see names.ts).
   */
  name: string;
  /** Where the tool comes from (a plugin instance, a memory mount, …): the prefix a colliding name gets. */
  namespace?: string;
  description: string;
  inputSchema: JSONSchema7;
  /**
   * Spellings the tool takes besides its schema's, made canonical before the arguments are checked
   * (`http_request` takes `"get"` for `"GET"`: models send both). The call's item, its approval and the
   * tool see the canonical arguments. Returns `input` itself when there is nothing to change.
   */
  canonicalInput?: (input: unknown) => unknown;
  permission: ToolPermission;
  /**
   * Whether the model is offered this tool. A tool that is not offered still answers a call to its
   * name (a write tool of a read-only memory mount says so instead of "there is no tool").
   */
  offered: boolean;
  /**
   * A passage for the system prompt while the tool is offered: what the model must know before it
   * thinks of calling it (the skills catalogue of `load_skill`).
   */
  instructions?: string;
  execution: ToolExecution;
  /**
   * The result goes to the model whole, however large (a tool that itself returns bounded pages of a
   * stored output). Every other server tool's large result is stored in the result item's
   * `content_refs` and the model gets a preview (see tool-output.ts).
   */
  inlineResult?: boolean;
  /** A tool that runs shell commands: the reviewer adds its `shell_instruction` when rating a call. */
  shell?: boolean;
  /** A tool that only reads what the run already holds: the reviewer does not rate its calls. */
  skipReview?: boolean;
}

/**
 * A tool's input schema, defined once as a TypeBox object: the JSON Schema the model is offered and
 * dispatch checks every call's arguments against (argument-check.ts), and, through `Static`, the type
 * of the arguments its execution reads. A TypeBox schema is plain JSON Schema (its own markers are not
 * enumerable).
 */
export const toolInputSchema = (schema: TObject): JSONSchema7 => schema as JSONSchema7;

/**
 * A server execution whose arguments are typed by the tool's input schema. Dispatch runs an execution
 * only with arguments that passed the check against that schema, so they are its `Static` type.
 */
export function checkedExecution<S extends TObject>(
  _inputSchema: S,
  execute: (args: Static<S>, call: ToolCallContext) => Promise<unknown>,
): Extract<ToolExecution, { kind: 'server' }> {
  return { kind: 'server', execute: (args, call) => execute(args as Static<S>, call) };
}

/** A tool the server carries out. */
export type ServerTool = RunTool & { execution: Extract<ToolExecution, { kind: 'server' }> };

/** What a tool source may read to build its tools: the run, its agent configuration, its memory mounts (and a way to offer more tools later). */
export interface ToolSourceContext {
  deps: Deps;
  /** The run's call context (its principal, in its workspace): what its tools do through services. */
  call: CallContext;
  run: Run;
  config: RunAgentConfig;
  mounts: Mount[];
  /** The run's environments, where tools run commands and keep files (absent outside an attempt). */
  environments?: RunEnvironments;
  /** The attempt's item stream (absent when a toolset is built outside an attempt). */
  items?: RunItemStream;
  /** The tools the sources before this one offer. */
  earlier?: readonly RunTool[];
  /**
   * Offers the model tools that were built not offered, from its next request on (deferred loading:
   * a tool-search tool loads the tools it finds). Names that are not tools of the run are ignored.
   */
  offerTools(names: readonly string[]): void;
  /**
   * The name in the run of a tool a source built (names.ts may have namespaced it): what the model
   * calls it and what `offerTools` takes. Known once the toolset is built — when a tool executes.
   */
  nameInRun(runTool: RunTool): string;
  /** Parks the attempt while it waits for `work` (see ExecutionContext.park); absent outside a worker. */
  park?: Park;
  /** The thread's MCP headers as the run's claim read them (connection tools read them when absent). */
  mcpHeaders?: McpHeaders;
  /** The attempt's usage, counted as it goes: subagent runs add theirs (absent outside an attempt). */
  usage?: Usage;
  /** Told before a source waits on a server outside the service (see ExecutionContext.onOutsideWait). */
  onOutsideWait?: () => void;
}

/**
 * Awaits `work` with the attempt parked: its worker slot is free meanwhile (another run may be
 * claimed in its place), while the attempt keeps its run, lease and abort signal.
 */
export type Park = <T>(work: Promise<T>) => Promise<T>;

/** One kind of tool: the tools it offers a run, from the run's configuration. */
export type ToolSource = (context: ToolSourceContext) => RunTool[] | Promise<RunTool[]>;
