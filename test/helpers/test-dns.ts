// Names for outbound-policy tests: `vi.mock('node:dns', async (original) => (await
// import('../helpers/test-dns.js')).testDns(original))` in a test file makes `dns.lookup`
// (the resolver the outbound policy's lookup calls) answer names under `.wsa.test` from
// TEST_NAMES — `.test` is reserved (RFC 6761), so no real resolver answers them — and every other
// name as usual. A name that resolves to loopback reaches the tests' loopback servers; one that
// resolves to a private address must be refused before any connection is tried.
import type * as Dns from 'node:dns';

/** Name → the address `dns.lookup` answers for it. */
export const TEST_NAMES: Record<string, string> = {
  'loop.wsa.test': '127.0.0.1',
  'engine.wsa.test': '127.0.0.1',
  'cluster.wsa.test': '127.0.0.1',
  'modal.wsa.test': '127.0.0.1',
  'internal.wsa.test': '10.255.0.1',
  // Google's OAuth token endpoint, as the Vertex test reaches it (on a loopback port of its own).
  'oauth2.googleapis.com': '127.0.0.1',
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Dns.LookupAddress[], family?: number) => void;

/** The mock factory's body: node:dns with `lookup` answering TEST_NAMES. */
export async function testDns(importOriginal: () => Promise<typeof Dns>) {
  const dns = await importOriginal();
  const lookup = (hostname: string, options: unknown, callback?: LookupCallback) => {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    const address = TEST_NAMES[hostname.toLowerCase()];
    if (address === undefined) return (dns.lookup as (...args: unknown[]) => void)(hostname, options, callback);
    const family = address.includes(':') ? 6 : 4;
    process.nextTick(() => (all ? done(null, [{ address, family }]) : done(null, address, family)));
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
}
