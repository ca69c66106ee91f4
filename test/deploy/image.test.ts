// What the Dockerfile and compose.yaml promise in docs/deploying.md, read from the files themselves
// (building and running the image is scripts/smoke-test-image.sh's job, which needs podman or docker):
// the final stage runs as a numeric non-root user with a /data volume, checks /readyz, starts in exec
// form under tini; compose runs API instances without workers, worker processes, migrations first and
// nginx passing websockets to both API instances.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(`${root}/${path}`, 'utf8');

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { keyword: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile', () => {
  const all = instructions(read('Dockerfile'));
  const stages = all.filter((instruction) => instruction.keyword === 'FROM');
  const final = all.slice(all.lastIndexOf(stages.at(-1)!));
  const last = (keyword: string) => final.filter((instruction) => instruction.keyword === keyword).at(-1)?.args;

  it('builds in stages, the final one from the Node image without the build tree', () => {
    expect(stages.map((stage) => stage.args)).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime-deps', '${NODE_IMAGE}']);
    const copied = final.filter((instruction) => instruction.keyword === 'COPY').map((instruction) => instruction.args);
    expect(copied).toContain('--from=runtime-deps /app/node_modules ./node_modules');
    expect(copied.some((args) => args.includes('--from=build') && args.includes('node_modules'))).toBe(false);
    expect(all.find((instruction) => instruction.args.startsWith('npm ci --omit=dev'))).toBeDefined();
  });

  it('runs as a numeric non-root user, with DATA_DIR on a volume', () => {
    const [user, group] = last('USER')!.split(':').map(Number);
    expect(user).toBeGreaterThan(0);
    expect(group).toBeGreaterThan(0);
    expect(last('VOLUME')).toBe('["/data"]');
    expect(final.some((instruction) => instruction.keyword === 'ENV' && instruction.args.includes('DATA_DIR=/data'))).toBe(true);
  });

  it('checks /readyz and starts in exec form under tini', () => {
    expect(last('HEALTHCHECK')).toMatch(/CMD \[.*\/readyz/);
    expect(JSON.parse(last('ENTRYPOINT')!)).toEqual(['/usr/bin/tini', '--', 'node']);
    expect(JSON.parse(last('CMD')!)).toEqual(['dist/src/server.js']);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, any> };
  const services = compose.services;

  it('runs two API instances without workers and two worker processes, after the migrations', () => {
    for (const name of ['api-1', 'api-2']) {
      expect(services[name].environment.RUN_WORKERS).toBe('0');
      expect(services[name].depends_on.migrate.condition).toBe('service_completed_successfully');
    }
    for (const name of ['worker-1', 'worker-2']) {
      expect(services[name].command).toEqual(['dist/src/worker.js']);
      expect(Number(services[name].environment.RUN_WORKERS)).toBeGreaterThan(0);
      expect(services[name].environment.REDIS_URL).toBe('redis://redis:6379');
    }
    expect(services.migrate.command).toEqual(['dist/src/db-cli.js', 'migrate']);
  });

  it('puts nginx in front of both API instances, passing websockets', () => {
    expect(services.lb.volumes).toContain('./deploy/compose/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
    const nginx = read('deploy/compose/nginx.conf');
    expect(nginx).toMatch(/server api-1:8080/);
    expect(nginx).toMatch(/server api-2:8080/);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    // Below the service's 65 s keep-alive, so nginx never reuses a connection the service is closing.
    expect(Number(/keepalive_timeout (\d+)s;/.exec(nginx)?.[1])).toBeLessThan(65);
  });
});
