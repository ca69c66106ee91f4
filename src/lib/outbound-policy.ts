// The one outbound policy: every request the service makes on a caller's behalf (model, web, memory
// and environment provider APIs, MCP connections, webhook deliveries, media fetched by URL, the
// `http_request` tool) may reach only public internet addresses, unless the deployment allows a host
// or a range (OUTBOUND_ALLOW_PRIVATE). Otherwise anyone who can name a URL could make the service
// probe its own network or a cloud metadata service (server-side request forgery).
//
// The check is made on the address each socket connects to, at every connection (redirects
// included): a literal host is checked before connecting, a name through the `lookup` the socket
// resolves it with, so a name that answers a public address to a check and a private one to the
// connection gains nothing. Addresses are parsed and classified by ipaddr.js, which reads every
// literal form a URL or a resolver can give (127.1, 2130706433, 0x7f000001, 0177.0.0.1, IPv6 with
// embedded IPv4 or a zone).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { posix } from 'node:path';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request as undiciRequest } from 'undici';

/**
 * A deployment's allowance: host names and CIDR ranges (an address alone is its own range), unix
 * socket paths (`unix:/var/run/docker.sock`, or `unix:*` for every socket), or `*` for every
 * target. Entries are kept as configured; `outboundPolicy` parses them once.
 */
export type OutboundAllowance = readonly string[];

/** The environment variable that allows private targets: named in every refusal. */
export const ALLOWANCE_VARIABLE = 'OUTBOUND_ALLOW_PRIVATE';

/** A refusal by the policy: a permanent failure (retrying does not change the address). */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  readonly code = 'outbound_refused';
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`outbound_refused: ${target} is ${reason}; allow it with ${ALLOWANCE_VARIABLE}`);
  }
}

/** The refusal an error carries, itself or as a cause (fetch wraps it in "fetch failed"), if any. */
export function outboundRefusalOf(error: unknown): OutboundRefusedError | null {
  for (let current = error, depth = 0; current && depth < 8; current = (current as { cause?: unknown }).cause, depth++)
    if (current instanceof OutboundRefusedError) return current;
  return null;
}

/**
 * What a failed fetch says about its failure: the policy's refusal whole, else the cause's code
 * (ECONNREFUSED, ENOTFOUND) or message — undici's own "fetch failed" says nothing.
 */
export function fetchFailure(error: unknown): string {
  const refusal = outboundRefusalOf(error);
  if (refusal) return refusal.message;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

// ipaddr.js names the ranges; the words say what each is in a refusal. Anything not `unicast` is refused.
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
};

// Ranges ipaddr.js counts as unicast that are not on the public internet either.
const EXTRA_IPV4: [string, string][] = [
  ['192.0.0.0/24', 'a reserved address'], // IETF protocol assignments
  ['192.0.2.0/24', 'a documentation address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['240.0.0.0/4', 'a reserved address'],
];
const EXTRA_IPV6: [string, string][] = [
  ['2001:db8::/32', 'a documentation address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['100::/64', 'a discard-only address'],
];
const extraV4 = EXTRA_IPV4.map(([cidr, words]) => ({ range: ipaddr.IPv4.parseCIDR(cidr), words }));
const extraV6 = EXTRA_IPV6.map(([cidr, words]) => ({ range: ipaddr.IPv6.parseCIDR(cidr), words }));

function ipv4Refusal(address: ipaddr.IPv4): string | null {
  const range = address.range();
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `a ${range} address`;
  return extraV4.find(({ range: cidr }) => address.match(cidr))?.words ?? null;
}

const ipv4FromBytes = (bytes: number[]) => new ipaddr.IPv4(bytes);

/** The IPv4 addresses an IPv6 address carries (mapped, NAT64, 6to4, Teredo, IPv4-compatible). */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const last32 = bytes.slice(12, 16);
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:0:0/96
    case 'rfc6145': // ::ffff:0:0:0/96 (SIIT)
    case 'rfc6052': // NAT64: 64:ff9b::/96 and the local-use 64:ff9b:1::/48
      return [ipv4FromBytes(last32)];
    case '6to4': // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
      return [ipv4FromBytes(bytes.slice(2, 6))];
    case 'teredo': // 2001:0:SERVER:flags:port:CLIENT, the client's bits inverted
      return [ipv4FromBytes(bytes.slice(4, 8)), ipv4FromBytes(last32.map((byte) => byte ^ 0xff))];
  }
  // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks); :: and ::1 are classified as themselves.
  if (bytes.slice(0, 12).every((byte) => byte === 0) && !(last32[0] === 0 && last32[1] === 0 && last32[2] === 0))
    return [ipv4FromBytes(last32)];
  return [];
}

function ipv6Refusal(address: ipaddr.IPv6): string | null {
  const embedded = embeddedIpv4(address);
  if (embedded.length) {
    for (const ipv4 of embedded) {
      const refusal = ipv4Refusal(ipv4);
      if (refusal) return `${refusal} (${ipv4.toString()} inside an IPv6 address)`;
    }
    return null;
  }
  const range = address.range();
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `a ${range} address`;
  return extraV6.find(({ range: cidr }) => address.match(cidr))?.words ?? null;
}

/** The parsed address of an IP literal in any form (brackets and a zone allowed), or null for a name. */
export function parseAddress(literal: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = literal.trim().replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return parsed;
}

/**
 * Why `literal` (an IP address, any form) is not a public internet address — "a loopback address",
 * "a private address (10.0.0.5 inside an IPv6 address)" — or null when it is public (or not an address).
 */
export function addressRefusal(literal: string): string | null {
  const address = parseAddress(literal);
  if (!address) return null;
  return address.kind() === 'ipv4' ? ipv4Refusal(address as ipaddr.IPv4) : ipv6Refusal(address as ipaddr.IPv6);
}

/** A host as URLs and entries are compared: lower case, no IPv6 brackets, no trailing dot. */
const bareHost = (host: string) =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/**
 * The socket path of a `unix:` allowance entry or endpoint (`unix:/run/x.sock`, `unix:///run/x.sock`),
 * normalized (`/run/../run/x.sock` is `/run/x.sock`); `*` for `unix:*`; null when it names no absolute path.
 */
function socketEntry(entry: string): string | null {
  const rest = entry.replace(/^unix:/i, '').replace(/^\/\/(?=\/)/, '');
  if (rest === '*') return '*';
  return rest.startsWith('/') && !rest.includes('\0') ? posix.normalize(rest) : null;
}

const LOOPBACK_V4 = ipaddr.parse('127.0.0.1');
const LOOPBACK_V6 = ipaddr.parse('::1');
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Splits and checks OUTBOUND_ALLOW_PRIVATE: throws a sentence naming the entry that is neither a host nor a range. */
export function parseAllowance(value: string | undefined, variable = ALLOWANCE_VARIABLE): OutboundAllowance {
  const text = value?.trim() ?? '';
  if (!text || /^(0|false|no|off)$/i.test(text)) return [];
  if (/^(1|true|yes|on)$/i.test(text)) return ['*'];
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (/^unix:/i.test(entry)) {
      if (socketEntry(entry) === null)
        throw new Error(
          `${variable}: ${JSON.stringify(entry)} names no absolute socket path (unix:/path/to.sock, or unix:* for every socket)`,
        );
      continue;
    }
    if (entry === '*' || (!entry.includes('/') && /^[a-z0-9.\-[\]:%_]+$/i.test(entry))) continue;
    try {
      ipaddr.parseCIDR(entry);
    } catch {
      throw new Error(`${variable}: ${JSON.stringify(entry)} is neither a host name, an address, a CIDR range nor *`);
    }
  }
  return entries;
}

export interface OutboundPolicyOptions {
  /**
   * How names are resolved: `dns.lookup` (the system's resolver, as sockets use it). Tests give a
   * resolver that answers names of their own, to reach loopback servers by a name.
   */
  resolve?: typeof dnsLookup;
}

/** The policy of one allowance: its checks, a `lookup` for node:http(s) and a `fetch` that enforces it. */
export class OutboundPolicy {
  private readonly all: boolean;
  private readonly hosts = new Set<string>();
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  private readonly sockets = new Set<string>();
  /** A fetch whose every connection (redirects included) goes through the policy. */
  readonly fetch: typeof fetch;
  private readonly dispatcher: Agent;

  private readonly resolve: typeof dnsLookup;

  constructor(
    readonly allowance: OutboundAllowance,
    options: OutboundPolicyOptions = {},
  ) {
    this.resolve = options.resolve ?? dnsLookup;
    this.all = allowance.includes('*');
    for (const entry of allowance) {
      if (entry === '*') continue;
      if (/^unix:/i.test(entry)) {
        const path = socketEntry(entry);
        if (path) this.sockets.add(path);
      } else if (entry.includes('/')) this.ranges.push(ipaddr.parseCIDR(entry));
      else {
        const address = parseAddress(entry);
        if (address) this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
        this.hosts.add(bareHost(entry));
      }
    }
    const connector = buildConnector({ lookup: this.lookup as never });
    this.dispatcher = new Agent({
      connect: (options, callback) => {
        const refusal = this.literalRefusal(options.hostname);
        if (refusal) return callback(refusal, null);
        connector(options, callback);
      },
    });
    const dispatcher = this.dispatcher;
    this.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      fetch(input, { ...init, dispatcher } as RequestInit)) as typeof fetch;
  }

  /**
   * One request through the same connection pool and address checks as `fetch`, answered with a
   * node Readable body — for a reader that takes the bytes as they come without a web stream
   * (src/providers/lean-chat-fetch.ts). It follows no redirect and undoes no content coding itself.
   */
  request(url: string, options: Omit<Parameters<typeof undiciRequest>[1] & object, 'dispatcher'>) {
    return undiciRequest(url, { ...options, dispatcher: this.dispatcher });
  }

  /** Whether the deployment allows `address` (a literal) reached under the name `host`. */
  private allowed(host: string, address: ipaddr.IPv4 | ipaddr.IPv6 | null): boolean {
    if (this.all || this.hosts.has(bareHost(host))) return true;
    if (!address) return false;
    const candidates =
      address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
        ? [address, (address as ipaddr.IPv6).toIPv4Address()]
        : [address];
    return candidates.some((candidate) =>
      this.ranges.some(([network, bits]) => network.kind() === candidate.kind() && candidate.match(network, bits)),
    );
  }

  /** The refusal of a connection to `address`, resolved from `host` (the same for a literal). */
  private refusalOf(host: string, address: string): OutboundRefusedError | null {
    const reason = addressRefusal(address);
    if (!reason || this.allowed(host, parseAddress(address))) return null;
    return new OutboundRefusedError(bareHost(host) === bareHost(address) ? bareHost(address) : `${bareHost(host)} (${address})`, reason);
  }

  /**
   * The refusal of a host that can be judged without resolving it: an address literal (any form)
   * that is not public, or a `localhost` name. Null for other names (they are checked at connection).
   */
  literalRefusal(host: string): OutboundRefusedError | null {
    const bare = bareHost(host);
    // `localhost` names resolve to loopback: allowed by name, or where loopback itself is allowed.
    if (isLocalhostName(bare))
      return this.allowed(bare, null) || this.allowed(bare, LOOPBACK_V4) || this.allowed(bare, LOOPBACK_V6)
        ? null
        : new OutboundRefusedError(bare, 'a loopback name');
    return parseAddress(bare) ? this.refusalOf(bare, bare) : null;
  }

  /** The same for a URL written by a caller (a provider's base URL, a webhook's target): checked when it is stored. */
  urlRefusal(url: URL): OutboundRefusedError | null {
    return this.literalRefusal(url.hostname);
  }

  /**
   * The refusal of a unix socket (`path` as an endpoint writes it, after `unix://`). A socket is a
   * service of this machine — the container engine's socket gives whoever may use it the machine —
   * so one is reached only where the deployment names its path (`unix:/var/run/docker.sock`) or
   * allows every socket (`unix:*`, or `*`). The path is compared as written, normalized; a relative
   * path or an abstract socket matches no path entry.
   */
  socketRefusal(path: string): OutboundRefusedError | null {
    if (this.all || this.sockets.has('*')) return null;
    const normalized = path.startsWith('/') ? posix.normalize(path) : path;
    if (this.sockets.has(normalized)) return null;
    return new OutboundRefusedError(`unix:${normalized}`, "a unix socket on the service's own machine");
  }

  /**
   * Socket options for node's own clients (node:http(s) requests, `ws`): the policy's `lookup`
   * checks every address a name resolves to, and the policy's own connection pool (`agent`) keeps
   * only sockets it opened — a pooled socket of another client, opened unchecked or under another
   * allowance, is never reused. A literal address is never looked up, so it is judged here: its
   * refusal is thrown. Spread them into the request's options.
   */
  socketOptions(host: string, secure: boolean): { lookup: OutboundPolicy['lookup']; agent: HttpAgent } {
    const refusal = this.literalRefusal(host);
    if (refusal) throw refusal;
    return { lookup: this.lookup, agent: secure ? this.httpsAgent : this.httpAgent };
  }

  private get httpAgent(): HttpAgent {
    return (this.agents.http ??= new HttpAgent({ keepAlive: true, lookup: this.lookup } as never));
  }

  private get httpsAgent(): HttpsAgent {
    return (this.agents.https ??= new HttpsAgent({ keepAlive: true, lookup: this.lookup } as never));
  }

  private readonly agents: { http?: HttpAgent; https?: HttpsAgent } = {};

  /**
   * A `lookup` for sockets (node:http(s) requests and undici's connector): resolves as usual and
   * refuses a name any of whose addresses the policy refuses.
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    this.resolve(hostname, { family: options.family as 0 | 4 | 6 | undefined, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      for (const { address } of addresses) {
        const refusal = this.refusalOf(hostname, address);
        if (refusal) return callback(refusal, '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

// One policy (and one connection pool) per allowance: a deployment has one; tests build several.
const policies = new WeakMap<OutboundAllowance, OutboundPolicy>();

/**
 * The policy of `allowance` (the deployment's `outboundAllowPrivate`). `options` apply when the
 * allowance's policy is first made (a test makes it with its own resolver before the service uses it).
 */
export function outboundPolicy(allowance: OutboundAllowance, options?: OutboundPolicyOptions): OutboundPolicy {
  let policy = policies.get(allowance);
  if (!policy) policies.set(allowance, (policy = new OutboundPolicy(allowance, options)));
  return policy;
}
