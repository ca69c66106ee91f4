// The outbound policy's pure parts and its connection hook: which addresses are public, in every
// literal form; the allowance (hosts, ranges, `*`) and its configuration; and the policy's fetch
// against a loopback server (refused unless allowed, a redirect to loopback refused at its hop).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { addressRefusal, OutboundPolicy, outboundRefusalOf, parseAllowance } from '../../src/lib/outbound-policy.js';

describe('addresses outside the public internet', () => {
  // [literal, what the refusal says] — every literal form of each kind of address.
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.1', /loopback/], // short form
    ['2130706433', /loopback/], // decimal
    ['0x7f000001', /loopback/], // hex
    ['0177.0.0.1', /loopback/], // octal
    ['0x7f.0.0.1', /loopback/],
    ['10.0.0.5', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/], // cloud metadata
    ['100.64.0.1', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.1', /documentation|reserved/],
    ['198.51.100.7', /documentation|reserved/],
    ['203.0.113.9', /documentation|reserved/],
    ['198.18.0.1', /benchmarking|reserved/],
    ['240.0.0.1', /reserved/],
    ['192.0.0.8', /reserved/],
    ['::1', /loopback/],
    ['[::1]', /loopback/],
    ['::', /unspecified/],
    ['fd12::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/], // with a zone
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation|reserved/],
    // IPv4 inside IPv6: judged by the IPv4 address it carries.
    ['::ffff:127.0.0.1', /loopback address \(127\.0\.0\.1 inside/], // mapped
    ['::ffff:7f00:1', /loopback/], // mapped, hex
    ['::ffff:a9fe:a9fe', /link-local/], // mapped metadata address
    ['64:ff9b::a00:5', /private address \(10\.0\.0\.5 inside/], // NAT64
    ['64:ff9b::127.0.0.1', /loopback/],
    ['64:ff9b:1::a00:5', /private/], // local-use NAT64
    ['2002:a00:5::1', /private address \(10\.0\.0\.5 inside/], // 6to4
    ['2002:7f00:1::', /loopback/],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /loopback address \(127\.0\.0\.1 inside/], // Teredo, client inverted
    ['2001:0:a00:5::1', /private/], // Teredo server
    ['::10.0.0.5', /private/], // IPv4-compatible
    ['::a00:5', /private/],
  ];
  it.each(refused)('%s is refused', (literal, words) => {
    expect(addressRefusal(literal)).toMatch(words);
  });

  const publicAddresses = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];
  it.each(publicAddresses)('%s is public', (literal) => {
    expect(addressRefusal(literal)).toBeNull();
  });

  it('names are not addresses: they are judged by what they resolve to', () => {
    expect(addressRefusal('example.com')).toBeNull();
    expect(addressRefusal('127.0.0.1.example.com')).toBeNull();
  });
});

describe('the allowance', () => {
  it('takes hosts, addresses, CIDR ranges and *, and refuses anything else', () => {
    expect(parseAllowance(' db.internal , 10.0.0.0/8,::1 ')).toEqual(['db.internal', '10.0.0.0/8', '::1']);
    expect(parseAllowance('*')).toEqual(['*']);
    expect(parseAllowance('true')).toEqual(['*']);
    expect(parseAllowance('false')).toEqual([]);
    expect(parseAllowance(undefined)).toEqual([]);
    expect(() => parseAllowance('10.0.0.0/99')).toThrow(/10\.0\.0\.0\/99/);
    expect(() => parseAllowance('http://x/y')).toThrow(/OUTBOUND_ALLOW_PRIVATE/);
    expect(parseAllowance('unix:/var/run/docker.sock,unix:///run/podman/podman.sock,unix:*')).toEqual([
      'unix:/var/run/docker.sock',
      'unix:///run/podman/podman.sock',
      'unix:*',
    ]);
    expect(() => parseAllowance('unix:docker.sock')).toThrow(/absolute socket path/);
    expect(() => parseAllowance('unix:')).toThrow(/absolute socket path/);
  });

  it('allows a unix socket only by its path, unix:* or *', () => {
    const none = new OutboundPolicy([]);
    expect(none.socketRefusal('/var/run/docker.sock')?.message).toBe(
      "outbound_refused: unix:/var/run/docker.sock is a unix socket on the service's own machine; allow it with OUTBOUND_ALLOW_PRIVATE",
    );
    // Loopback allowed is not a socket allowed.
    expect(new OutboundPolicy(['127.0.0.0/8', 'localhost']).socketRefusal('/var/run/docker.sock')).not.toBeNull();
    const one = new OutboundPolicy(['unix:///var/run/docker.sock']);
    expect(one.socketRefusal('/var/run/docker.sock')).toBeNull();
    expect(one.socketRefusal('/var/run/./docker.sock')).toBeNull();
    expect(one.socketRefusal('/tmp/../var/run/docker.sock')).toBeNull();
    expect(one.socketRefusal('/run/podman/podman.sock')).not.toBeNull();
    expect(one.socketRefusal('var/run/docker.sock')).not.toBeNull(); // relative: matches no path
    expect(one.socketRefusal('\0docker')).not.toBeNull(); // abstract
    expect(new OutboundPolicy(['unix:*']).socketRefusal('/anything.sock')).toBeNull();
    expect(new OutboundPolicy(['*']).socketRefusal('/anything.sock')).toBeNull();
    // A socket entry allows no network target.
    expect(new OutboundPolicy(['unix:*']).urlRefusal(new URL('http://127.0.0.1/'))).not.toBeNull();
  });

  it('allows by name, by range (a mapped IPv6 address included) or everything', () => {
    const url = (host: string) => new URL(`https://${host}/`);
    const none = new OutboundPolicy([]);
    expect(none.urlRefusal(url('10.0.0.5'))?.message).toBe(
      'outbound_refused: 10.0.0.5 is a private address; allow it with OUTBOUND_ALLOW_PRIVATE',
    );
    // The URL parser turns every IPv4 form into dotted decimal: still refused.
    expect(none.urlRefusal(url('2130706433'))?.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(none.urlRefusal(url('0x7f.1'))?.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(none.urlRefusal(url('[::ffff:10.0.0.5]'))?.message).toMatch(/private/);
    expect(none.urlRefusal(url('localhost'))?.message).toMatch(/localhost is a loopback name/);
    expect(none.urlRefusal(url('app.localhost'))?.message).toMatch(/loopback name/);
    expect(none.urlRefusal(url('api.example.com'))).toBeNull();
    const ranges = new OutboundPolicy(['10.0.0.0/8']);
    expect(ranges.urlRefusal(url('10.1.2.3'))).toBeNull();
    expect(ranges.urlRefusal(url('[::ffff:10.1.2.3]'))).toBeNull();
    expect(ranges.urlRefusal(url('192.168.0.1'))).not.toBeNull();
    expect(new OutboundPolicy(['*']).urlRefusal(url('169.254.169.254'))).toBeNull();
    // `localhost` is allowed by name, or where loopback is.
    expect(new OutboundPolicy(['localhost']).urlRefusal(url('localhost'))).toBeNull();
    expect(new OutboundPolicy(['127.0.0.1']).urlRefusal(url('localhost'))).toBeNull();
  });

  it('is configured by OUTBOUND_ALLOW_PRIVATE, with WEBHOOK_ALLOW_PRIVATE_TARGETS as an alias; loopback only on the embedded database', () => {
    const server = { DATABASE_URL: 'postgres://db/wsa' };
    expect(loadConfig(server).outboundAllowPrivate).toEqual([]);
    expect(loadConfig({}).outboundAllowPrivate).toEqual(['127.0.0.0/8', '::1', 'localhost', 'unix:*']);
    expect(loadConfig({ ...server, OUTBOUND_ALLOW_PRIVATE: '10.0.0.0/8,ollama.lan' }).outboundAllowPrivate).toEqual([
      '10.0.0.0/8',
      'ollama.lan',
    ]);
    expect(loadConfig({ ...server, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).outboundAllowPrivate).toEqual(['*']);
    expect(
      loadConfig({ ...server, OUTBOUND_ALLOW_PRIVATE: '10.0.0.1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'hooks.lan' }).outboundAllowPrivate,
    ).toEqual(['10.0.0.1', 'hooks.lan']);
    // Set on the embedded database too, the list is the whole allowance (loopback is no longer implied).
    expect(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'ollama.lan' }).outboundAllowPrivate).toEqual(['ollama.lan']);
    expect(() => loadConfig({ ...server, OUTBOUND_ALLOW_PRIVATE: '10.0.0.0/40' })).toThrow(/OUTBOUND_ALLOW_PRIVATE/);
  });
});

describe("the policy's fetch", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/to-loopback') res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end();
      else res.end('the loopback answer');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const refusalOf = async (policy: OutboundPolicy, url: string) => {
    try {
      const response = await policy.fetch(url);
      return { status: response.status, body: await response.text() };
    } catch (error) {
      return outboundRefusalOf(error)?.message ?? (error as Error).message;
    }
  };

  it('refuses a literal, a name resolving to loopback, and a redirect to loopback, never passing on the answer', async () => {
    const none = new OutboundPolicy([]);
    expect(await refusalOf(none, `http://127.0.0.1:${port}/`)).toBe(
      'outbound_refused: 127.0.0.1 is a loopback address; allow it with OUTBOUND_ALLOW_PRIVATE',
    );
    expect(await refusalOf(none, `http://2130706433:${port}/`)).toMatch(/^outbound_refused: 127\.0\.0\.1 is a loopback address/);
    expect(await refusalOf(none, `http://localhost:${port}/`)).toMatch(/^outbound_refused: localhost is a loopback name/);
    // `localhost` allowed by name: the connection is made, the redirect's hop to 127.0.0.1 is not.
    const byName = new OutboundPolicy(['localhost']);
    expect(await refusalOf(byName, `http://localhost:${port}/to-loopback`)).toMatch(
      /^outbound_refused: 127\.0\.0\.1 is a loopback address/,
    );
  });

  it('connects where the allowance allows, redirects included', async () => {
    expect(await refusalOf(new OutboundPolicy(['127.0.0.0/8', '::1']), `http://localhost:${port}/to-loopback`)).toEqual({
      status: 200,
      body: 'the loopback answer',
    });
    expect(await refusalOf(new OutboundPolicy(['*']), `http://127.0.0.1:${port}/`)).toEqual({ status: 200, body: 'the loopback answer' });
  });

  it('refuses at resolution: the lookup the socket uses', async () => {
    const resolved = await new Promise<unknown>((done) =>
      new OutboundPolicy([]).lookup('localhost', { all: true }, (error, addresses) => done(error ?? addresses)),
    );
    expect(outboundRefusalOf(resolved)?.message).toMatch(/^outbound_refused: localhost \((127\.0\.0\.1|::1)\) is a loopback address/);
  });
});
