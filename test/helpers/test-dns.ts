// Names for outbound-policy tests. A policy made with `testResolve` (or by `testPolicy`) resolves
// names under `.wsa.test` from TEST_NAMES — `.test` is reserved (RFC 6761), so no real resolver
// answers them — and every other name as the system does. A name that resolves to loopback reaches
// the tests' loopback servers by a name; one that resolves to a private address must be refused
// before any connection is tried. The test files share their worker's modules (vitest.config.ts:
// isolate false), so this is the policy's own resolver option, not a mock of node:dns.
import { lookup, type LookupAddress } from 'node:dns';
import { outboundPolicy, OutboundPolicy } from '../../src/lib/outbound-policy.js';

/** Name → the address it resolves to. */
export const TEST_NAMES: Record<string, string> = {
  'engine.wsa.test': '127.0.0.1',
  'cluster.wsa.test': '127.0.0.1',
  'modal.wsa.test': '127.0.0.1',
  'internal.wsa.test': '10.255.0.1',
  // Google's OAuth token endpoint, as the Vertex test reaches it (on a loopback port of its own).
  'oauth2.googleapis.com': '127.0.0.1',
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `dns.lookup`, answering TEST_NAMES itself. */
export const testResolve = ((hostname: string, options: unknown, callback?: LookupCallback) => {
  const done = (typeof options === 'function' ? options : callback) as LookupCallback;
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
  const address = TEST_NAMES[hostname.toLowerCase()];
  if (address === undefined) return (lookup as (...args: unknown[]) => void)(hostname, options, callback);
  const family = address.includes(':') ? 6 : 4;
  process.nextTick(() => (all ? done(null, [{ address, family }]) : done(null, address, family)));
}) as typeof lookup;

/** A policy of `entries` resolving through testResolve. */
export const testPolicy = (entries: string[]) => new OutboundPolicy(entries, { resolve: testResolve });

/**
 * The allowance array a test service is given (config.outboundAllowPrivate), its policy made with
 * testResolve before the service asks for it (policies are kept per allowance array).
 */
export function testAllowance(entries: string[]): readonly string[] {
  outboundPolicy(entries, { resolve: testResolve });
  return entries;
}
