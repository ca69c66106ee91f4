// The platform tools (`platform_tools`). The environment groups work in the run's mounted
// environment: `shell` (`run_command`), `files` (`read_file`, `list_files`, `write_file`, `edit_file`)
// and `search` (`grep`, `glob`). The workspace groups (agents, skills, models, connections, memories,
// environment templates; see workspace-resources/: tools over the workspace's resources) need no environment and are offered without one.
// Reads take `read_permission`, writes `write_permission` (a command is a write: it can change
// anything). Every environment tool works through the environment driver (RunEnvironments.open), so a
// path that leaves the environment is refused by the driver, and a lazy environment is provisioned
// by the first call. Large results go through the tool layer's `content_refs` like every server tool's.
import { posix } from 'node:path';
import type { JSONSchema7 } from '@ai-sdk/provider';
import Type, { type Static, type TObject, type TProperties } from 'typebox';
import { minimatch } from 'minimatch';
import type { EnvironmentToolGroup } from '../../features/agents/documents/platform-tool-groups.js';
import { AppError } from '../../lib/errors.js';
import type { RunEnvironments } from '../environment-mounts.js';
import { resolvePermission } from './permissions.js';
import { SkillSync } from './skill-sync.js';
import { runSkillsOf } from './skills.js';
import type { RunTool, ToolPermission, ToolSource, ToolSourceContext } from './tool.js';
import { workspaceTools } from './workspace-resources/index.js';

export const COMMAND_TIMEOUT_DEFAULT_SECONDS = 60;
export const COMMAND_TIMEOUT_MAX_SECONDS = 600;
export const OUTPUT_DEFAULT_BYTES = 256 * 1024;
export const OUTPUT_MAX_BYTES = 1024 * 1024;
/** The largest file `read_file` returns and `edit_file` edits. */
export const FILE_MAX_BYTES = 4 * 1024 * 1024;
const LIST_MAX_ENTRIES = 5000;
const GLOB_SCAN_DEPTH = 32;
const GLOB_SCAN_ENTRIES = 20_000;
const SEARCH_MAX_RESULTS = 1000;

// Each tool's input schema is a TypeBox schema: the JSON Schema the model is offered and ajv checks
// a call's arguments against (argument-check.ts), and the type of the handler's arguments (`Static`),
// so the two cannot drift. Members not in `required` are optional.
const MOUNT_PROPERTY = Type.Optional(
  Type.String({ description: 'The mounted environment to work in (its mount name); default: the run’s first (`default`) environment.' }),
);
const schema = <P extends TProperties>(properties: P) =>
  Type.Object({ ...properties, mount: MOUNT_PROPERTY }, { additionalProperties: false });
const PATH = (what: string) => Type.String({ description: `${what}, relative to the mount’s working directory.` });

interface PlatformToolDefinition<S extends TObject = TObject> {
  name: string;
  group: EnvironmentToolGroup;
  write: boolean;
  shell?: boolean;
  description: string;
  inputSchema: S;
  /**
   * Carries out a call whose arguments passed the check against `inputSchema`. A method (not a
   * function member), so a definition of any schema is one of the list's.
   */
  execute(mount: OpenedMount, args: Static<S>, signal: AbortSignal): Promise<unknown>;
}

/** A tool's definition, its handler's arguments typed by its own schema. */
const platformTool = <S extends TObject>(definition: PlatformToolDefinition<S>): PlatformToolDefinition<S> => definition;

/** One mounted environment opened for a call, with paths resolved against the mount's working directory. */
type OpenedMount = Awaited<ReturnType<RunEnvironments['open']>> & { at(path: unknown): string };

async function openMount(environments: RunEnvironments, args: Record<string, unknown>): Promise<OpenedMount> {
  const opened = await environments.open(typeof args.mount === 'string' ? args.mount : undefined);
  const base = opened.mount.working_directory;
  // Relative paths start at the mount's directory; absolute ones go to the driver as they are (it
  // refuses any that leave the environment, as it refuses `..` that climbs out).
  const at = (path: unknown) => {
    const given = typeof path === 'string' && path !== '' ? path : '.';
    if (posix.isAbsolute(given) || !base) return given;
    return posix.join(base, given);
  };
  return { ...opened, at };
}

const text = (value: unknown, field: string): string => {
  if (typeof value !== 'string') throw new AppError('invalid_argument', `${field} must be a string`);
  return value;
};
const bounded = (value: unknown, fallback: number, max: number): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(Math.floor(value), max) : fallback;

/** A directory or file the driver accepts (inside the environment, existing): what `grep` may search. */
async function confined(mount: OpenedMount, path: string): Promise<void> {
  try {
    await mount.listFiles(path, { depth: 0, limit: 0 });
  } catch {
    await mount.readFile(path, { maxBytes: 0 });
  }
}

const DEFINITIONS: PlatformToolDefinition[] = [
  platformTool({
    name: 'run_command',
    group: 'shell',
    write: true,
    shell: true,
    description:
      'Run a shell command line (`/bin/sh -c`) in the environment. Returns its exit code, standard output and standard error ' +
      '(each cut to `max_output_bytes`), and whether it timed out.',
    inputSchema: schema({
      command: Type.String({ description: 'The command line.' }),
      cwd: Type.Optional(PATH('Where it starts (default: the mount’s working directory)')),
      timeout_seconds: Type.Optional(
        Type.Integer({ minimum: 1, maximum: COMMAND_TIMEOUT_MAX_SECONDS, description: `Default ${COMMAND_TIMEOUT_DEFAULT_SECONDS}.` }),
      ),
      max_output_bytes: Type.Optional(
        Type.Integer({ minimum: 1, maximum: OUTPUT_MAX_BYTES, description: `Bytes kept of each stream; default ${OUTPUT_DEFAULT_BYTES}.` }),
      ),
    }),
    async execute(mount, args, signal) {
      const result = await mount.exec({
        command: text(args.command, 'command'),
        cwd: mount.at(args.cwd),
        timeoutMs: bounded(args.timeout_seconds, COMMAND_TIMEOUT_DEFAULT_SECONDS, COMMAND_TIMEOUT_MAX_SECONDS) * 1000,
        maxOutputBytes: bounded(args.max_output_bytes, OUTPUT_DEFAULT_BYTES, OUTPUT_MAX_BYTES),
        signal,
      });
      return {
        exit_code: result.exitCode,
        signal: result.signal,
        stdout: result.stdout,
        stderr: result.stderr,
        stdout_bytes: result.stdoutBytes,
        stderr_bytes: result.stderrBytes,
        truncated: result.truncated,
        timed_out: result.timedOut,
        duration_ms: result.durationMs,
      };
    },
  }),
  platformTool({
    name: 'read_file',
    group: 'files',
    write: false,
    description: 'Read a text file of the environment (at most `max_bytes`; `truncated` says there was more).',
    inputSchema: schema({
      path: PATH('The file'),
      max_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: FILE_MAX_BYTES, description: `Default ${FILE_MAX_BYTES}.` })),
    }),
    async execute(mount, args) {
      const path = text(args.path, 'path');
      const read = await mount.readFile(mount.at(path), { maxBytes: bounded(args.max_bytes, FILE_MAX_BYTES, FILE_MAX_BYTES) });
      return { path, content: read.content.toString('utf8'), size_bytes: read.sizeBytes, truncated: read.truncated };
    },
  }),
  platformTool({
    name: 'list_files',
    group: 'files',
    write: false,
    description: 'List a directory of the environment, breadth first, to a depth.',
    inputSchema: schema({
      path: Type.Optional(PATH('The directory (default: the mount’s working directory)')),
      depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'Levels to descend (default 2).' })),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: LIST_MAX_ENTRIES, description: 'At most this many entries (default 500).' }),
      ),
    }),
    async execute(mount, args) {
      const listed = await mount.listFiles(mount.at(args.path), {
        depth: bounded(args.depth, 2, 10),
        limit: bounded(args.limit, 500, LIST_MAX_ENTRIES),
      });
      return {
        entries: listed.entries.map((e) => ({ path: e.path, kind: e.kind, size_bytes: e.sizeBytes, modified_at: e.modifiedAt })),
        truncated: listed.truncated,
      };
    },
  }),
  platformTool({
    name: 'write_file',
    group: 'files',
    write: true,
    description: 'Create or replace a file of the environment (its directories are created).',
    inputSchema: schema({ path: PATH('The file'), content: Type.String({ description: 'The whole new content.' }) }),
    async execute(mount, args) {
      const path = text(args.path, 'path');
      const written = await mount.writeFile(mount.at(path), text(args.content, 'content'));
      return { path, size_bytes: written.sizeBytes };
    },
  }),
  platformTool({
    name: 'edit_file',
    group: 'files',
    write: true,
    description: 'Replace an exact string in a file of the environment. `old_string` must occur exactly once unless `replace_all` is true.',
    inputSchema: schema({
      path: PATH('The file'),
      old_string: Type.String({ minLength: 1, description: 'The exact text to replace.' }),
      new_string: Type.String({ description: 'Its replacement.' }),
      replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence (default false).' })),
    }),
    async execute(mount, args) {
      const path = text(args.path, 'path');
      const oldString = text(args.old_string, 'old_string');
      const newString = text(args.new_string, 'new_string');
      if (!oldString) throw new AppError('invalid_argument', 'old_string must not be empty');
      const file = mount.at(path);
      const read = await mount.readFile(file, { maxBytes: FILE_MAX_BYTES });
      if (read.truncated) throw new AppError('invalid_argument', `${path} is larger than ${FILE_MAX_BYTES} bytes; edit it with a command`);
      const content = read.content.toString('utf8');
      const occurrences = content.split(oldString).length - 1;
      if (occurrences === 0) throw new AppError('invalid_argument', `old_string does not occur in ${path}`);
      if (occurrences > 1 && args.replace_all !== true)
        throw new AppError('invalid_argument', `old_string occurs ${occurrences} times in ${path}; make it unique or set replace_all`);
      // split/join replaces literally: no `$` patterns as String.replace would read them.
      const edited = args.replace_all === true ? content.split(oldString).join(newString) : content.replace(oldString, () => newString);
      const written = await mount.writeFile(file, edited);
      return { path, replacements: args.replace_all === true ? occurrences : 1, size_bytes: written.sizeBytes };
    },
  }),
  platformTool({
    name: 'grep',
    group: 'search',
    write: false,
    description:
      'Search file contents of the environment for a regular expression (POSIX extended); answers `path:line:text` matches. ' +
      'Binary files are skipped.',
    inputSchema: schema({
      pattern: Type.String({ minLength: 1, description: 'The regular expression.' }),
      path: Type.Optional(PATH('The directory or file to search (default: the mount’s working directory)')),
      include: Type.Optional(Type.String({ description: 'Only files whose name matches this glob (e.g. `*.ts`).' })),
      ignore_case: Type.Optional(Type.Boolean()),
      max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_RESULTS, description: 'Default 200.' })),
    }),
    async execute(mount, args, signal) {
      const pattern = text(args.pattern, 'pattern');
      const path = typeof args.path === 'string' && args.path !== '' ? args.path : '.';
      // The driver checks the path first (inside the environment, symbolic links included); grep
      // itself does not follow links while it recurses.
      await confined(mount, mount.at(path));
      const argv = ['grep', '-r', '-n', '-I', '-E', ...(args.ignore_case === true ? ['-i'] : [])];
      if (typeof args.include === 'string' && args.include) argv.push(`--include=${args.include}`);
      argv.push('--', pattern, path);
      const result = await mount.exec({
        command: argv,
        cwd: mount.at('.'),
        timeoutMs: COMMAND_TIMEOUT_DEFAULT_SECONDS * 1000,
        maxOutputBytes: OUTPUT_MAX_BYTES,
        signal,
      });
      // grep answers 1 when nothing matched, 2 on trouble.
      if (result.exitCode !== 0 && result.exitCode !== 1)
        throw new AppError(
          'invalid_argument',
          `grep failed: ${result.stderr.trim() || (result.timedOut ? 'timed out' : `exit ${result.exitCode}`)}`,
        );
      const max = bounded(args.max_results, 200, SEARCH_MAX_RESULTS);
      const lines = result.stdout.split('\n').filter((line) => line !== '');
      return { matches: lines.slice(0, max), truncated: lines.length > max || result.truncated };
    },
  }),
  platformTool({
    name: 'glob',
    group: 'search',
    write: false,
    description: 'Find files of the environment whose path matches a glob pattern (`**/*.ts`), relative to `path`.',
    inputSchema: schema({
      pattern: Type.String({ minLength: 1, description: 'The glob pattern.' }),
      path: Type.Optional(PATH('The directory to search (default: the mount’s working directory)')),
      max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_RESULTS, description: 'Default 200.' })),
    }),
    async execute(mount, args) {
      const pattern = text(args.pattern, 'pattern');
      const listed = await mount.listFiles(mount.at(args.path), { depth: GLOB_SCAN_DEPTH, limit: GLOB_SCAN_ENTRIES });
      const max = bounded(args.max_results, 200, SEARCH_MAX_RESULTS);
      const found = listed.entries.filter((e) => e.kind !== 'directory' && minimatch(e.path, pattern)).map((e) => e.path);
      return { paths: found.slice(0, max), truncated: found.length > max || listed.truncated };
    },
  }),
];

/** The permission of a platform tool: `read_permission` for reads, `write_permission` for writes. */
function permissionOf(definition: PlatformToolDefinition, config: { read_permission?: string; write_permission?: string }): ToolPermission {
  return resolvePermission(definition.name, { permission: definition.write ? config.write_permission : config.read_permission });
}

export const platformTools: ToolSource = (context) => [...environmentTools(context), ...workspaceTools(context)];

/** The environment groups' tools. */
function environmentTools(context: ToolSourceContext): RunTool[] {
  const { config, environments, run } = context;
  const settings = config.platform_tools;
  const groups = new Set(settings?.groups ?? []);
  // Without an environment (none mounted, no default template) there is nowhere to work.
  if (!settings || !environments?.available) return [];
  // The run's skills reach the environment before the first call that works in it.
  const sync = config.skill_sync ? new SkillSync(config.skill_sync, run.id, () => runSkillsOf(context), environments) : null;
  return DEFINITIONS.filter((definition) => groups.has(definition.group)).map((definition): RunTool => ({
    name: definition.name,
    namespace: 'platform',
    description: definition.description,
    // A TypeBox schema is plain JSON Schema (its own markers are not enumerable).
    inputSchema: definition.inputSchema as JSONSchema7,
    permission: permissionOf(definition, settings),
    offered: true,
    shell: definition.shell,
    execution: {
      kind: 'server',
      execute: async (args, call) => {
        const mount = await openMount(environments, args);
        await sync?.ensure(mount);
        return definition.execute(mount, args, call.signal);
      },
    },
  }));
}
