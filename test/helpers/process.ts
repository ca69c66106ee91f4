// Runs the service and the CLI as real child processes (as an operator would).
import { spawn, type ChildProcess, execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ChildService {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves once the process has printed `text` (a log message); fails if it exits first. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
}

export interface ServiceProcess extends ChildService {
  url: string;
}

function spawnTsx(script: string, env: Record<string, string>): ChildService {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', OUTBOUND_ALLOW_PRIVATE: '127.0.0.1,::1,localhost', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForOutput = async (text: string, timeoutMs = 90_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!output.includes(text)) {
      if (child.exitCode !== null) throw new Error(`${script} exited before printing "${text}":\n${output}`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${script} did not print "${text}":\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, output: () => output, exited, waitForOutput };
}

/** Starts `src/server.ts` and waits until it listens. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const service = spawnTsx('src/server.ts', { PORT: String(port), HOST: '127.0.0.1', ...env });
  await service.waitForOutput('workspace agent service listening');
  return { ...service, url: `http://127.0.0.1:${port}` };
}

/** Starts `src/worker.ts` (`npm run worker`) and waits until its workers listen for runs. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildService> {
  const worker = spawnTsx('src/worker.ts', env);
  await worker.waitForOutput('run worker started');
  return worker;
}

async function runTsx(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** `npm run cli -- …` as a process. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTsx('src/cli.ts', args, env);
}

/** `npm run db -- …` (psql, dump, restore) as a process. */
export function runDbTool(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTsx('src/db-cli.ts', args, env);
}
