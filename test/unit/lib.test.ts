import { describe, expect, it } from 'vitest';
import { canonicalize, digestOf } from '../../src/lib/canonical-json.js';
import {
  CONNECTION_ARGUMENTS,
  REST_PAGE_ARGUMENTS,
  decodeCursor,
  encodeCursor,
  pageSize,
  renamePageError,
  renamePageProblem,
  toPage,
} from '../../src/lib/cursor.js';
import { checkIfMatch, formatEtag } from '../../src/lib/etag.js';
import { labelsWhere, parseLabelSelectors, validateLabels } from '../../src/lib/labels.js';
import { createSecretBox, hashPassword, keyFromSecret, newToken, verifyPassword } from '../../src/lib/crypto.js';
import { looksLikeId, newId } from '../../src/lib/ids.js';
import { isAppError, statusForCode } from '../../src/lib/errors.js';
import { loadConfig } from '../../src/config.js';
import { Wakeup } from '../../src/lib/wakeup.js';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return isAppError(error) ? error.code : 'not-an-app-error';
  }
  return null;
};

describe('canonical JSON', () => {
  it('sorts keys at every depth and drops insignificant whitespace', () => {
    expect(canonicalize({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
    expect(digestOf({ a: 1, b: 2 })).toBe(digestOf(JSON.parse('{ "b" : 2,\n "a": 1 }')));
    expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: '1' }));
    expect(canonicalize({ a: undefined, b: null })).toBe('{"b":null}');
  });
});

describe('cursors and page sizes', () => {
  it('round-trip, and refuse cursors of another list or garbage', () => {
    const cursor = encodeCursor('agents', ['agt_1', 3]);
    expect(decodeCursor('agents', cursor)).toEqual(['agt_1', 3]);
    expect(codeOf(() => decodeCursor('runs', cursor))).toBe('invalid_argument');
    expect(codeOf(() => decodeCursor('agents', '%%%'))).toBe('invalid_argument');
    expect(codeOf(() => decodeCursor('agents', 'bm90IGpzb24'))).toBe('invalid_argument');
    expect(decodeCursor('agents', null)).toBeNull();
  });

  it('check limits against the documented range', () => {
    expect(pageSize(undefined, { default: 50, max: 100 })).toBe(50);
    expect(pageSize(100, { default: 50, max: 100 })).toBe(100);
    expect(codeOf(() => pageSize(0, { default: 50, max: 100 }))).toBe('invalid_argument');
    expect(codeOf(() => pageSize(101, { default: 50, max: 100 }))).toBe('invalid_argument');
    expect(codeOf(() => pageSize(1.5, { default: 50, max: 100 }))).toBe('invalid_argument');
  });

  it('toPage emits a cursor only when more rows exist', () => {
    expect(toPage([1, 2, 3], 3, 'l', (n) => [n]).nextCursor).toBeNull();
    const page = toPage([1, 2, 3, 4], 3, 'l', (n) => [n]);
    expect(page.items).toEqual([1, 2, 3]);
    expect(decodeCursor('l', page.nextCursor)).toEqual([3]);
  });

  it('toPage gives every item its own cursor, the last one equal to nextCursor', () => {
    const page = toPage([1, 2, 3, 4], 3, 'l', (n) => [n]);
    expect([0, 1, 2].map((index) => decodeCursor('l', page.cursorAt(index)))).toEqual([[1], [2], [3]]);
    expect(page.cursorAt(2)).toBe(page.nextCursor);
  });

  it('renames the page arguments a problem names, both ways, and nothing else', () => {
    const limit = { code: 'invalid_argument', message: 'limit must be an integer from 1 to 100', details: { field: 'limit' } };
    const first = renamePageProblem(limit, CONNECTION_ARGUMENTS);
    expect(first).toEqual({ code: 'invalid_argument', message: 'first must be an integer from 1 to 100', details: { field: 'first' } });
    expect(renamePageProblem(first, REST_PAGE_ARGUMENTS)).toEqual(limit);
    const cursor = { code: 'invalid_argument', message: 'cursor is not a cursor returned by this list', details: { field: 'cursor' } };
    expect(renamePageProblem(cursor, CONNECTION_ARGUMENTS).details).toEqual({ field: 'after' });
    const other = { code: 'invalid_argument', message: 'status must be one of a, b', details: { field: 'status' } };
    expect(renamePageProblem(other, CONNECTION_ARGUMENTS)).toBe(other);
    const notFound = { code: 'not_found', message: 'limit x', details: { field: 'limit' } };
    expect(renamePageProblem(notFound, CONNECTION_ARGUMENTS)).toBe(notFound);
    let thrown: unknown;
    try {
      pageSize(0, { default: 50, max: 100 });
    } catch (error) {
      thrown = renamePageError(error, CONNECTION_ARGUMENTS);
    }
    expect(isAppError(thrown) && thrown.details).toEqual({ field: 'first' });
    expect(renamePageError('boom', CONNECTION_ARGUMENTS)).toBe('boom');
  });
});

describe('ETags', () => {
  it('format as "{id}:{version}" and check If-Match', () => {
    expect(formatEtag('agt_1', 2)).toBe('"agt_1:2"');
    expect(codeOf(() => checkIfMatch(undefined, 'a', 1))).toBe('precondition_required');
    expect(codeOf(() => checkIfMatch('"a:0"', 'a', 1))).toBe('precondition_failed');
    expect(codeOf(() => checkIfMatch('"b:1"', 'a', 1))).toBe('precondition_failed');
    expect(codeOf(() => checkIfMatch('"a:1"', 'a', 1))).toBeNull();
    expect(codeOf(() => checkIfMatch('W/"a:1"', 'a', 1))).toBeNull();
    expect(codeOf(() => checkIfMatch('"x:9", "a:1"', 'a', 1))).toBeNull();
    expect(codeOf(() => checkIfMatch('*', 'a', 1))).toBeNull();
    expect(codeOf(() => checkIfMatch(undefined, 'a', 1, false))).toBeNull();
  });
});

describe('labels', () => {
  it('validate keys, values and the count', () => {
    expect(validateLabels({ team: 'core', 'example.com/tier': 'gold', 'a.b-c_d': '' })).toEqual({
      team: 'core',
      'example.com/tier': 'gold',
      'a.b-c_d': '',
    });
    expect(codeOf(() => validateLabels({ 'bad key': 'x' }))).toBe('invalid_argument');
    expect(codeOf(() => validateLabels({ k: 1 }))).toBe('invalid_argument');
    expect(codeOf(() => validateLabels([]))).toBe('invalid_argument');
    expect(codeOf(() => validateLabels(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']))))).toBe('invalid_argument');
  });

  it('parse at most 8 key:value selectors', () => {
    expect(parseLabelSelectors(['a:1', 'b:x:y'])).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: 'x:y' },
    ]);
    expect(parseLabelSelectors(Array.from({ length: 8 }, (_, i) => `k${i}:v`))).toHaveLength(8);
    expect(codeOf(() => parseLabelSelectors(Array.from({ length: 9 }, (_, i) => `k${i}:v`)))).toBe('invalid_argument');
    expect(codeOf(() => parseLabelSelectors(['novalue']))).toBe('invalid_argument');
    expect(labelsWhere(parseLabelSelectors(['a:1']))).toEqual({ AND: [{ labels: { path: ['a'], equals: '1' } }] });
  });
});

describe('crypto', () => {
  it('seals secrets with AES-256-GCM, detects tampering, and decrypts with previous keys after rotation', () => {
    const oldKey = keyFromSecret('old secret');
    const newKey = keyFromSecret('new secret');
    const before = createSecretBox(oldKey);
    const sealed = before.encryptJson({ api_key: 'sk-live-123' });
    expect(sealed).not.toContain('sk-live-123');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(before.decryptJson(sealed)).toEqual({ api_key: 'sk-live-123' });
    const rotated = createSecretBox(newKey, [oldKey]);
    expect(rotated.decryptJson(sealed)).toEqual({ api_key: 'sk-live-123' });
    expect(rotated.encrypt('x').split('.')[1]).not.toBe(sealed.split('.')[1]);
    expect(() => createSecretBox(newKey).decrypt(sealed)).toThrow(/SECRET_KEY/);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => before.decrypt(parts.join('.'))).toThrow();
  });

  it('hashes passwords with scrypt and salts', async () => {
    const hash = await hashPassword('hunter22');
    expect(hash).toMatch(/^scrypt\$/);
    expect(await hashPassword('hunter22')).not.toBe(hash);
    expect(await verifyPassword('hunter22', hash)).toBe(true);
    expect(await verifyPassword('hunter23', hash)).toBe(false);
  });

  it('makes prefixed random tokens', () => {
    expect(newToken('wsk_')).toMatch(/^wsk_[A-Za-z0-9_-]{43}$/);
    expect(newToken('wsk_')).not.toBe(newToken('wsk_'));
  });
});

describe('ids', () => {
  it('are kind-prefixed and sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => newId('agent'));
    expect([...ids].sort()).toEqual(ids);
    expect(looksLikeId('agent', ids[0]!)).toBe(true);
    expect(looksLikeId('skill', ids[0]!)).toBe(false);
    expect(newId('skill').slice(0, 4)).not.toBe(newId('agent').slice(0, 4));
  });
});

describe('error table and config', () => {
  it('maps codes to statuses', () => {
    expect(statusForCode('invalid_argument')).toBe(400);
    expect(statusForCode('precondition_required')).toBe(428);
    expect(statusForCode('idempotency_key_reused')).toBe(409);
    expect(statusForCode('made_up')).toBe(500);
  });

  it('parses and validates the environment', () => {
    const config = loadConfig({ PORT: '9000', DATABASE_URL: 'postgres://u@h/db', LOG_LEVEL: 'debug' });
    expect(config).toMatchObject({ port: 9000, host: '127.0.0.1', databaseUrl: 'postgres://u@h/db', logLevel: 'debug' });
    expect(loadConfig({}).databaseUrl).toBeNull();
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ BOOTSTRAP_API_KEY: 'nope' })).toThrow(/BOOTSTRAP_API_KEY/);
  });

  it('the development model type: offered for a trial on the embedded database and in development and test, not in production on its own database unless allowed', () => {
    const external = 'postgres://u@h/db';
    expect(loadConfig({}).allowDevelopmentModels).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development', DATABASE_URL: external }).allowDevelopmentModels).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', DATABASE_URL: external }).allowDevelopmentModels).toBe(true);
    expect(loadConfig({ DATABASE_URL: external }).allowDevelopmentModels).toBe(false);
    expect(loadConfig({ DATABASE_URL: external, ALLOW_DEVELOPMENT_MODELS: 'true' }).allowDevelopmentModels).toBe(true);
    expect(loadConfig({ ALLOW_DEVELOPMENT_MODELS: 'false' }).allowDevelopmentModels).toBe(false);
  });

  it('vector index budget: 256 memories and 1024 MB by default, in MB from the environment', () => {
    expect(loadConfig({})).toMatchObject({ memoryIndexMaxMemories: 256, memoryIndexMaxBytes: 1024 * 1024 * 1024 });
    expect(loadConfig({ MEMORY_INDEX_MAX_MB: '3072', MEMORY_INDEX_MAX_MEMORIES: '10' })).toMatchObject({
      memoryIndexMaxMemories: 10,
      memoryIndexMaxBytes: 3072 * 1024 * 1024,
    });
    expect(() => loadConfig({ MEMORY_INDEX_MAX_MB: '0' })).toThrow(/MEMORY_INDEX_MAX_MB/);
  });

  it('shutdown grace period: 5 s by default, 0 to 600 s', () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs).toBe(0);
    expect(() => loadConfig({ SHUTDOWN_GRACE_MS: '-1' })).toThrow(/SHUTDOWN_GRACE_MS/);
    expect(() => loadConfig({ SHUTDOWN_GRACE_MS: '600001' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });

  it('trace export and retention: the OTLP endpoint by the exporter rules, 30 days by default', () => {
    expect(loadConfig({})).toMatchObject({ otlpTracesEndpoint: null, otelServiceName: 'workspace-agent-service', traceRetentionDays: 30 });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).otlpTracesEndpoint).toBe('http://collector:4318/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' }).otlpTracesEndpoint).toBe(
      'https://c.example/otlp/v1/traces',
    );
    // The signal's own variable is the whole URL and wins.
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/traces' })
        .otlpTracesEndpoint,
    ).toBe('http://b:4318/traces');
    expect(loadConfig({ OTEL_SERVICE_NAME: 'agents-eu' }).otelServiceName).toBe('agents-eu');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x/v1/traces' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(loadConfig({ TRACE_RETENTION_DAYS: '7' }).traceRetentionDays).toBe(7);
    expect(() => loadConfig({ TRACE_RETENTION_DAYS: '0' })).toThrow(/TRACE_RETENTION_DAYS/);
  });

  it('webhook retention: 30 days by default, a whole number of days from 1', () => {
    expect(loadConfig({}).webhookRetentionDays).toBe(30);
    expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '90' }).webhookRetentionDays).toBe(90);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '1.5' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: 'forever' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
  });
});

describe('wakeup', () => {
  it('ends the wait under way once, and keeps no wake given while nobody waits', async () => {
    const wakeup = new Wakeup();
    wakeup.wake(); // nobody waits: not kept
    let woken = 0;
    const first = wakeup.wait().then(() => woken++);
    await Promise.resolve();
    expect(woken).toBe(0);
    wakeup.wake();
    wakeup.wake(); // a second wake ends no further wait
    await first;
    expect(woken).toBe(1);
    const second = wakeup.wait().then(() => woken++);
    const timeout = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 20));
    expect(await Promise.race([second.then(() => 'woken'), timeout])).toBe('still waiting');
    const { wake } = wakeup; // bound: handed to listeners as it is
    wake();
    await second;
    expect(woken).toBe(2);
  });
});
