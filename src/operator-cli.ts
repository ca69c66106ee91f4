// The operator CLI's commands (`npm run cli -- <command> [--flags] [--json]`), callable in-process:
// runCli(argv, io) returns the exit code; src/cli.ts is the process around it. Same code and database
// as the service; with the embedded database it attaches to a running service's PostgreSQL if there is one.
import { RunTracer } from './traces/run-tracer.js';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { openDatabase, type Database } from './db.js';
import { createLogger } from './lib/logger.js';
import { createEvents } from './lib/events.js';
import type { EventTopics } from './services/event-topics.js';
import { AppError, isAppError } from './lib/errors.js';
import { loadSecretBox } from './secrets.js';
import type { Deps } from './services/deps.js';
import { createApiKey, createUser, createWorkspace, revokeApiKey, setApiKeyRateLimit } from './features/access/admin.js';

const USAGE = `usage: npm run cli -- <command> [options] [--json]

  workspaces create --name NAME [--org ORGANIZATION]
      creates a workspace (and the organization if new) with an all-permission API key
  api-keys create --workspace WORKSPACE_ID --permissions read,write,admin,run [--name NAME] [--rate-limit 600/60s|0]
  api-keys update --id API_KEY_ID --rate-limit 600/60s|0|default
      the key's own request-rate limit (0: none; default: RATE_LIMIT_PER_KEY)
  api-keys revoke --id API_KEY_ID
  users create --email EMAIL --password PASSWORD --workspace WORKSPACE_ID --role admin|writer|reader [--name NAME]
`;

type Output = Record<string, unknown>;

async function run(
  deps: Deps,
  command: string,
  values: Record<string, string | boolean | undefined>,
): Promise<{ output: Output; text: string }> {
  const need = (name: string): string => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') throw new AppError('invalid_argument', `--${name} is required`);
    return value;
  };
  switch (command) {
    case 'workspaces create': {
      const created = await createWorkspace(deps, { name: need('name'), organization: values.org as string | undefined });
      return {
        output: {
          workspace_id: created.workspace.id,
          organization_id: created.organization.id,
          name: created.workspace.name,
          api_key: created.apiKey.token,
          api_key_id: created.apiKey.id,
        },
        text: `workspace ${created.workspace.id} (${created.workspace.name}) in organization ${created.organization.id}\nAPI key (all permissions, shown once): ${created.apiKey.token}`,
      };
    }
    case 'api-keys create': {
      const key = await createApiKey(deps, {
        workspaceId: need('workspace'),
        permissions: need('permissions'),
        name: values.name as string | undefined,
        rateLimit: values['rate-limit'] as string | undefined,
      });
      return {
        output: {
          api_key_id: key.id,
          api_key: key.token,
          workspace_id: key.workspaceId,
          permissions: key.permissions,
          rate_limit: key.rateLimit,
        },
        text: `API key ${key.id} (shown once): ${key.token}`,
      };
    }
    case 'api-keys update': {
      const updated = await setApiKeyRateLimit(deps, need('id'), need('rate-limit'));
      return {
        output: { api_key_id: updated.id, rate_limit: updated.rateLimit, changed: updated.changed },
        text: `API key ${updated.id}: rate limit ${updated.rateLimit ?? 'default'}${updated.changed ? '' : ' (unchanged)'}`,
      };
    }
    case 'api-keys revoke': {
      const revoked = await revokeApiKey(deps, need('id'));
      return {
        output: { api_key_id: revoked.id, revoked_at: revoked.revokedAt, changed: revoked.changed },
        text: `API key ${revoked.id} revoked`,
      };
    }
    case 'users create': {
      const created = await createUser(deps, {
        email: need('email'),
        password: need('password'),
        workspaceId: need('workspace'),
        role: need('role'),
        name: values.name as string | undefined,
      });
      return {
        output: {
          user_id: created.user.id,
          email: created.user.email,
          membership_id: created.membership.id,
          workspace_id: created.membership.workspaceId,
          role: created.membership.role,
        },
        text: `user ${created.user.id} <${created.user.email}> is ${created.membership.role} of ${created.membership.workspaceId}`,
      };
    }
    default:
      throw new AppError('invalid_argument', `unknown command ${JSON.stringify(command)}\n${USAGE}`);
  }
}

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The environment the configuration is read from. */
  env: NodeJS.ProcessEnv;
}

/** Runs one CLI command; never exits the process. Exit codes: 0 done, 2 bad input or refused, 1 anything else. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  const fail = (error: unknown): number => {
    const payload = isAppError(error)
      ? { code: error.code, message: error.message }
      : { code: 'internal', message: (error as Error).message };
    if (json) io.stdout.write(`${JSON.stringify({ error: payload })}\n`);
    else io.stderr.write(`error: ${payload.message}\n`);
    return isAppError(error) ? 2 : 1;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        name: { type: 'string' },
        org: { type: 'string' },
        workspace: { type: 'string' },
        permissions: { type: 'string' },
        id: { type: 'string' },
        'rate-limit': { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    return fail(new AppError('invalid_argument', `${(error as Error).message}\n${USAGE}`));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length < 2) return fail(new AppError('invalid_argument', `a command is required\n${USAGE}`));
  // stdout carries the result alone (one JSON object with --json); logs go to stderr.
  const logger = createLogger(io.env.LOG_LEVEL ?? 'warn', io.stderr);
  let database: Database | null = null;
  try {
    const config = loadConfig(io.env);
    database = await openDatabase(config, logger, { adoptRunningEmbedded: false });
    const deps: Deps = {
      db: database.prisma,
      config,
      logger,
      secrets: loadSecretBox(config, logger),
      events: createEvents<EventTopics>(),
      tracer: new RunTracer(config, database.prisma, logger),
    };
    const { output, text } = await run(deps, positionals.slice(0, 2).join(' '), values);
    io.stdout.write(json ? `${JSON.stringify(output)}\n` : `${text}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  } finally {
    await database?.close();
  }
}
