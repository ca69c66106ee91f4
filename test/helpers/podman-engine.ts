// A real container engine for the `docker` environment type's tests: Podman's Docker-compatible API
// service (`podman system service`), started as a child process on a unix socket in a temporary
// directory with its own configuration and its own image and container storage there, so a test
// file never touches the machine's default storage and several can run at once. No registry is
// reachable, so the image comes from a root file system tarball made here (busybox's tools, GNU grep
// for the `grep` tool's `-I` and `--include`, dash as /bin/sh, with their libraries) and imported through the
// Engine API itself (`POST /images/create?fromSrc=-`).
//
// Settings the machine needs (documented in docs/api/environments.md): the `runc` runtime (crun
// cannot run in a cgroups "hybrid" layout), default ulimits no higher than the hard limits the
// service runs under, no network namespace setup (no networking is needed), the `cgroupfs` cgroup
// manager and file events (no systemd or journald), and the `vfs` storage driver (no overlay mounts
// to clean up, works on any file system).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** Where podman is, or null: tests skip only when it is not installed. */
export function podmanPath(): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const candidate = join(dir, 'podman');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

export interface PodmanEngine {
  /** `unix://…/podman.sock`: the provider's endpoint. */
  endpoint: string;
  socketPath: string;
  /** An image the engine has (imported, never pulled). */
  image: string;
  /** A JSON call to the engine's API (versioned path), answered with its status and parsed body. */
  api(method: string, path: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'];

/** A root file system tarball: busybox and its applets in /bin, GNU grep with the libraries it loads. */
function rootfsTarball(dir: string): Buffer {
  const root = join(dir, 'rootfs');
  mkdirSync(join(root, 'bin'), { recursive: true });
  for (const d of ['tmp', 'proc', 'sys', 'dev', 'etc', 'root']) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  const busybox = BUSYBOX.find((path) => existsSync(path));
  if (!busybox) throw new Error('busybox is not installed (Debian: busybox-static)');
  copyFileSync(busybox, join(root, 'bin/busybox'));
  const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const applet of applets) if (!['busybox', 'grep', 'sh'].includes(applet)) symlinkSync('busybox', join(root, 'bin', applet));
  // GNU grep: the `grep` tool uses -I and --include, which busybox's grep lacks. And dash as /bin/sh:
  // busybox's own shell runs its applets in preference to programs of the same name.
  for (const [name, candidates] of [
    ['grep', ['/usr/bin/grep', '/bin/grep']],
    ['sh', ['/usr/bin/dash', '/bin/dash']],
  ] as const) {
    const program = candidates.find((path) => existsSync(path));
    if (!program) throw new Error(`${name} is not installed`);
    copyFileSync(program, join(root, 'bin', name));
    for (const line of execFileSync('ldd', [program], { encoding: 'utf8' }).split('\n')) {
      const library = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
      if (!library) continue;
      mkdirSync(join(root, dirname(library)), { recursive: true });
      copyFileSync(library, join(root, library));
    }
  }
  return execFileSync('tar', ['-C', root, '-cf', '-', '.'], { maxBuffer: 64 * 1024 * 1024 });
}

function call(socketPath: string, method: string, path: string, body?: Buffer, contentType?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method,
        path,
        headers: { host: 'podman', ...(body ? { 'content-type': contentType, 'content-length': String(body.length) } : {}) },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Ids of this machine's processes whose command line names `dir` (read from /proc). */
function processesMentioning(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`${dir}/`)) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

export async function startPodmanEngine(): Promise<PodmanEngine> {
  const podman = podmanPath();
  if (!podman) throw new Error('podman is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'wsa-podman-'));
  const path = (name: string) => join(dir, name);
  writeFileSync(
    path('containers.conf'),
    [
      '[containers]',
      'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
      'netns = "none"',
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `events_logfile_path = "${path('events.log')}"`,
      `tmp_dir = "${path('tmp')}"`,
      '[network]',
      `network_config_dir = "${path('networks')}"`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    path('storage.conf'),
    ['[storage]', 'driver = "vfs"', `graphroot = "${path('root')}"`, `runroot = "${path('run')}"`, ''].join('\n'),
  );
  const socketPath = path('podman.sock');
  const child: ChildProcess = spawn(
    podman,
    ['--root', path('root'), '--runroot', path('run'), '--tmpdir', path('tmp'), 'system', 'service', '--time=0', `unix://${socketPath}`],
    {
      env: { ...process.env, CONTAINERS_CONF: path('containers.conf'), CONTAINERS_STORAGE_CONF: path('storage.conf') },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));

  // Ready when the socket answers _ping (the service creates the socket as it starts listening).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running) throw new Error(`podman system service exited: ${log}`);
    const ping = await call(socketPath, 'GET', '/_ping').catch(() => null);
    if (ping?.status === 200) break;
    if (Date.now() > deadline) throw new Error(`podman system service did not answer: ${log}`);
    await delay(50);
  }

  const image = 'localhost/wsa-busybox:1';
  const imported = await call(
    socketPath,
    'POST',
    `/v1.41/images/create?fromSrc=-&repo=${encodeURIComponent(image)}`,
    rootfsTarball(dir),
    'application/x-tar',
  );
  if (imported.status !== 200 || imported.text.includes('"error"')) throw new Error(`could not import the image: ${imported.text}`);

  const api = async (method: string, apiPath: string) => {
    const answer = await call(socketPath, method, `/v1.41${apiPath}`);
    let body: unknown = answer.text;
    try {
      body = answer.text ? JSON.parse(answer.text) : null;
    } catch {
      // not JSON: the text
    }
    return { status: answer.status, body };
  };
  return {
    endpoint: `unix://${socketPath}`,
    socketPath,
    image,
    api,
    async close() {
      // Containers outlive the service (their runtime processes are not its children): remove them first.
      if (running) {
        const listed = await api('GET', '/containers/json?all=true').catch(() => null);
        for (const container of (listed?.body as { Id: string }[] | null) ?? [])
          await api('DELETE', `/containers/${container.Id}?force=true&v=true`).catch(() => undefined);
        child.kill('SIGTERM');
        await exited;
      }
      // Each exec leaves a conmon process (not the service's child) waiting five minutes before it
      // runs `podman container cleanup` against this storage: end those of this engine, found by
      // the temporary directory on their command line.
      for (const pid of processesMentioning(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ended meanwhile
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
