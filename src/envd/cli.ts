// envd: the remote environment daemon. It pairs with the service, keeps its device credential in a
// 0600 file, holds a websocket to the service and answers directory listings confined to the
// roots it was started with. With --allow-environments it also runs the service's environments
// there (commands, files: ./environments.ts) — an explicit opt-in, since that lets the service run
// commands on this machine.
//
//   npm run envd -- pair --server URL [--name NAME] [--workspace wsp_…] [--config FILE]
//   npm run envd -- serve --root DIR [--root DIR …] [--allow-environments] [--config FILE]
//
// Exit codes: 0 ok; 1 usage or network error; 2 pairing rejected; 3 pairing expired;
// 4 credential refused (revoked or unknown).
import { parseArgs } from 'node:util';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { homedir, hostname, platform, arch } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import WebSocket from 'ws';
import { confineToRoots, listDirectories, resolveRoots, EnvdError } from './fs.js';
import { EnvironmentHost, type Frame } from './environments.js';

interface Credential {
  server: string;
  device_id: string;
  workspace_id: string;
  device_credential: string;
  private_key: string;
  public_key: string;
  paired_at: string;
}

const log = (message: string) => process.stdout.write(`${message}\n`);
const fail = (message: string, code = 1): never => {
  process.stderr.write(`envd: ${message}\n`);
  process.exit(code);
};

function defaultConfigPath(): string {
  return process.env.ENVD_CONFIG || join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'wsa-envd', 'credential.json');
}

function writeCredential(path: string, credential: Credential) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credential, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600); // the umask cannot widen it, and an existing file keeps no older mode
  renameSync(temporary, path);
}

async function post(server: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(path, server), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function pair(values: Record<string, string | string[] | boolean | undefined>) {
  const server = typeof values.server === 'string' ? values.server : fail('pair needs --server URL');
  const configPath = resolve(typeof values.config === 'string' ? values.config : defaultConfigPath());
  const keys = generateKeyPairSync('ed25519');
  const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const request = await post(server, '/api/envd/pair', {
    device_name: typeof values.name === 'string' ? values.name : hostname(),
    platform: `${platform()}-${arch()}`,
    public_key: publicKey,
    ...(typeof values.workspace === 'string' ? { workspace_id: values.workspace } : {}),
  });
  if (request.status !== 200) fail(`pairing request refused (${request.status}): ${JSON.stringify(request.body)}`);
  const pairing = request.body as {
    pairing_id: string;
    user_code: string;
    poll_secret: string;
    expires_at: string;
    poll_interval_seconds: number;
  };
  log(`pairing ${pairing.pairing_id} user code ${pairing.user_code}`);
  log(
    `Enter the user code in the UI's device pairings (GET /api/device-pairings?user_code=${pairing.user_code}) and approve it; waiting until ${pairing.expires_at}`,
  );
  const intervalMs = Number(process.env.ENVD_POLL_INTERVAL_MS) || pairing.poll_interval_seconds * 1000;
  for (;;) {
    await sleep(intervalMs);
    const poll = await post(server, '/api/envd/pair/poll', { poll_secret: pairing.poll_secret }).catch((error: Error) => ({
      status: 0,
      body: error.message,
    }));
    if (poll.status !== 200) {
      process.stderr.write(`envd: poll failed (${poll.status}); retrying\n`);
      continue;
    }
    const status = poll.body.status as string;
    if (status === 'pending') continue;
    if (status === 'approved' && poll.body.device_credential) {
      writeCredential(configPath, {
        server,
        device_id: poll.body.device_id,
        workspace_id: poll.body.workspace_id,
        device_credential: poll.body.device_credential,
        private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        public_key: publicKey,
        paired_at: new Date().toISOString(),
      });
      log(`paired as device ${poll.body.device_id}; credential stored in ${configPath}`);
      return;
    }
    if (status === 'rejected') fail('the pairing was rejected', 2);
    if (status === 'expired') fail('the pairing expired before anyone approved it', 3);
    fail(`the pairing ended as ${status}`, 1);
  }
}

async function serve(values: Record<string, string | string[] | boolean | undefined>) {
  const configPath = resolve(typeof values.config === 'string' ? values.config : defaultConfigPath());
  let credential: Credential;
  try {
    credential = JSON.parse(readFileSync(configPath, 'utf8')) as Credential;
  } catch (error) {
    return fail(`cannot read the credential at ${configPath} (run "envd pair" first): ${(error as Error).message}`);
  }
  const rootArgs = Array.isArray(values.root) ? values.root : [];
  if (rootArgs.length === 0) fail('serve needs at least one --root DIR');
  const roots = resolveRoots(rootArgs as string[]);
  const allowEnvironments = values['allow-environments'] === true;
  const host = new EnvironmentHost(roots, allowEnvironments);
  const url = new URL('/api/envd/connect', credential.server.replace(/^http/, 'ws'));
  let attempt = 0;

  const connect = () => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${credential.device_credential}` } });
    socket.on('unexpected-response', (_request, response) => {
      if (response.statusCode === 401) fail('the service refused the device credential (revoked or unknown)', 4);
      process.stderr.write(`envd: connection refused with ${response.statusCode}; retrying\n`);
      socket.terminate();
      reconnect();
    });
    socket.on('open', () => {
      attempt = 0;
      log(
        `connected to ${url.origin} as device ${credential.device_id}; roots: ${roots.join(', ')}; environments ${allowEnvironments ? 'allowed' : 'not allowed'}`,
      );
    });
    socket.on('message', async (data) => {
      let message: { id?: string; type?: string; method?: string; params?: Record<string, unknown> };
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (message.type !== 'request' || typeof message.id !== 'string') return;
      const id = message.id;
      const send = (frame: Frame) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ id, ...frame }));
      };
      try {
        let result: unknown;
        if (message.method === 'list_directories') {
          const requested = typeof message.params?.path === 'string' ? message.params.path : null;
          result =
            requested === null
              ? { path: null, entries: roots.map((root) => ({ name: root, path: root })), truncated: false }
              : await listDirectories(await confineToRoots(roots, requested));
        } else if (typeof message.method === 'string') {
          result = await host.handle(id, message.method, message.params ?? {}, send);
        } else throw new EnvdError('unknown_method', 'a request needs a method');
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ id, type: 'response', result }));
      } catch (error) {
        const code = error instanceof EnvdError ? error.code : 'internal';
        socket.send(JSON.stringify({ id: message.id, type: 'response', error: { code, message: (error as Error).message } }));
      }
    });
    socket.on('close', (code, reason) => {
      // Nobody is left to hear what a command answers: end everything the service started here.
      host.stopAll();
      if (code === 4401) fail(`the device was revoked (${reason.toString() || 'revoked'})`, 4);
      log(`disconnected (${code}); reconnecting`);
      reconnect();
    });
    socket.on('error', (error) => process.stderr.write(`envd: ${error.message}\n`));
  };
  const reconnect = () => {
    attempt += 1;
    setTimeout(connect, Math.min(30_000, 250 * 2 ** Math.min(attempt, 7)));
  };
  connect();
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      host.stopAll();
      process.exit(0);
    });
}

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    server: { type: 'string' },
    name: { type: 'string' },
    workspace: { type: 'string' },
    config: { type: 'string' },
    root: { type: 'string', multiple: true },
    'allow-environments': { type: 'boolean' },
  },
  strict: true,
});
if (command === 'pair') await pair(values);
else if (command === 'serve') await serve(values);
else
  fail(
    'usage: envd pair --server URL [--name NAME] [--workspace ID] [--config FILE] | envd serve --root DIR [--root DIR …] [--allow-environments] [--config FILE]',
  );
