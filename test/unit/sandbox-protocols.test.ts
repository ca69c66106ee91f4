// Pure parts of the hosted sandbox drivers: the Connect RPC envelope framing E2B's envd speaks
// (split anywhere across network chunks, end-of-stream, size limits), the Connect error of an HTTP
// answer, E2B's envd address, and the shell script Daytona's toolbox runs for one command — run here
// by a real /bin/sh, and its merged output split back into standard output, standard error and the
// exit code.
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  codeOfHttpStatus,
  ConnectError,
  encodeEnvelope,
  END_STREAM_FLAG,
  EnvelopeDecoder,
  errorOfResponse,
} from '../../src/providers/environments/connect-rpc.js';
import { envdAccess, envdBaseUrl } from '../../src/providers/environments/e2b-api.js';
import { execScript, parseExecOutput } from '../../src/providers/environments/daytona.js';
import { OutboundPolicy } from '../../src/lib/outbound-policy.js';

describe('Connect envelopes', () => {
  it('frame a message as flags, a big-endian length and the JSON', () => {
    const envelope = encodeEnvelope({ event: { start: { pid: 7 } } });
    expect(envelope[0]).toBe(0);
    expect(envelope.readUInt32BE(1)).toBe(envelope.length - 5);
    expect(JSON.parse(envelope.subarray(5).toString())).toEqual({ event: { start: { pid: 7 } } });
    expect(encodeEnvelope({}, END_STREAM_FLAG)[0]).toBe(2);
  });

  it('are decoded however the bytes arrive, with the end-of-stream flag kept', () => {
    const wire = Buffer.concat([
      encodeEnvelope({ event: { start: { pid: 1 } } }),
      encodeEnvelope({ event: { data: { stdout: Buffer.from('hi').toString('base64') } } }),
      encodeEnvelope({}),
      encodeEnvelope({ error: { code: 'not_found', message: 'gone' } }, END_STREAM_FLAG),
    ]);
    for (const size of [1, 4, 5, 6, 17, wire.length]) {
      const decoder = new EnvelopeDecoder();
      const seen = [];
      for (let at = 0; at < wire.length; at += size) seen.push(...decoder.push(wire.subarray(at, at + size)));
      expect(seen).toEqual([
        { flags: 0, message: { event: { start: { pid: 1 } } } },
        { flags: 0, message: { event: { data: { stdout: 'aGk=' } } } },
        { flags: 0, message: {} },
        { flags: END_STREAM_FLAG, message: { error: { code: 'not_found', message: 'gone' } } },
      ]);
      expect(decoder.remaining).toBe(0);
    }
  });

  it('keep an incomplete envelope pending, and refuse oversized, compressed or non-JSON ones', () => {
    const decoder = new EnvelopeDecoder();
    expect(decoder.push(encodeEnvelope({ a: 1 }).subarray(0, 7))).toEqual([]);
    expect(decoder.remaining).toBe(7);
    const huge = Buffer.alloc(5);
    huge.writeUInt32BE(1024, 1);
    expect(() => new EnvelopeDecoder(100).push(huge)).toThrow(ConnectError);
    expect(() => new EnvelopeDecoder().push(encodeEnvelope({ a: 1 }, 1))).toThrow(/compressed/);
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 0, 3]), Buffer.from('{x}')]);
    expect(() => new EnvelopeDecoder().push(notJson)).toThrow(/not JSON/);
  });

  it('errors of plain HTTP answers carry the Connect error body, else the code the status stands for', async () => {
    const withBody = await errorOfResponse(new Response(JSON.stringify({ code: 'not_found', message: 'no file' }), { status: 404 }));
    expect([withBody.code, withBody.message]).toEqual(['not_found', 'no file']);
    const bare = await errorOfResponse(new Response('Bad Gateway', { status: 502 }));
    expect([bare.code, bare.message]).toEqual(['unavailable', 'Bad Gateway']);
    expect(codeOfHttpStatus(401)).toBe('unauthenticated');
    expect(codeOfHttpStatus(418)).toBe('unknown');
  });
});

describe('E2B envd addressing', () => {
  const ctx = (providerConfig: Record<string, unknown>, environmentConfig: Record<string, unknown> = {}) => ({
    providerConfig,
    environmentConfig,
    credential: { api_key: 'k' },
    dataDir: '',
    fetch,
    outbound: new OutboundPolicy([]),
  });

  it('is port 49983 of the sandbox host, on the sandbox’s domain, the provider’s, or e2b.app', () => {
    expect(envdBaseUrl(ctx({}), { sandboxID: 'abc' })).toBe('https://49983-abc.e2b.app');
    expect(envdBaseUrl(ctx({ domain: 'e2b.example.com' }), { sandboxID: 'abc' })).toBe('https://49983-abc.e2b.example.com');
    expect(envdBaseUrl(ctx({}), { sandboxID: 'abc', domain: 'eu.e2b.dev' })).toBe('https://49983-abc.eu.e2b.dev');
    expect(envdBaseUrl(ctx({ sandbox_url: 'https://{port}-{sandbox_id}.proxy.internal/' }), { sandboxID: 'abc' })).toBe(
      'https://49983-abc.proxy.internal',
    );
  });

  it('carries the routing headers, the access token and the user as Basic credentials', () => {
    const access = envdAccess(ctx({}, { user: 'root' }), { sandboxID: 'abc', envdAccessToken: 'tok' });
    expect(access.headers).toEqual({
      'e2b-sandbox-id': 'abc',
      'e2b-sandbox-port': '49983',
      authorization: `Basic ${Buffer.from('root:').toString('base64')}`,
      'x-access-token': 'tok',
    });
    expect(envdAccess(ctx({}), { sandboxID: 'abc' }).headers).not.toHaveProperty('x-access-token');
  });
});

describe('the Daytona command script', () => {
  /** Runs the script as the toolbox does (the script is the shell's standard input, output merged). */
  const run = (request: Parameters<typeof execScript>[0]) => {
    const { script, marker } = execScript(request);
    const child = spawnSync('/bin/sh', [], { input: script, encoding: 'utf8' });
    return parseExecOutput(`${child.stdout}${child.stderr}`, marker);
  };

  it('keeps standard error apart and reports the exit code', () => {
    const result = run({ command: 'echo out; echo err >&2; printf partial; exit 4' });
    expect([result.stdout.toString(), result.stderr.toString(), result.exitCode]).toEqual(['out\npartial', 'err\n', 4]);
  });

  it('quotes arguments, environment values and standard input of any bytes', () => {
    const tricky = `it's "$HOME" \`x\` \\ ;`;
    const argv = run({ command: ['printf', '%s|%s', tricky, '$(id)'] });
    expect(argv.stdout.toString()).toBe(`${tricky}|$(id)`);
    const env = run({ command: 'printf %s "$V"', env: { V: tricky } });
    expect(env.stdout.toString()).toBe(tricky);
    const input = run({ command: ['cat'], stdin: `line one\n${tricky}\n\u00e9` });
    expect(input.stdout.toString()).toBe(`line one\n${tricky}\n\u00e9`);
    expect(run({ command: ['cat'] }).stdout.toString()).toBe('');
  });

  it('a killed script has no trailer: the output is all standard output and the exit code unknown', () => {
    expect(parseExecOutput('partial output', '__wsa_exec_x__')).toEqual({
      stdout: Buffer.from('partial output'),
      stderr: Buffer.alloc(0),
      exitCode: null,
    });
  });

  it('records its process group in a pid file the kill reads', () => {
    const { script, pidFile } = execScript({ command: 'true' });
    expect(script.split('\n')[0]).toBe(`echo $$ > ${pidFile}`);
    expect(execFileSync('/bin/sh', ['-n', '-c', script]).toString()).toBe('');
  });
});
