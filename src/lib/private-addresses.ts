// Private, loopback and link-local addresses: what a request the service sends on a caller's behalf
// (a webhook delivery) must not reach unless the deployment allows the host — otherwise anyone who
// can name a URL could make the service probe its own network (server-side request forgery).
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP literal) is private, loopback, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return PRIVATE.check(bare, 'ipv4');
  if (family !== 6) return false;
  // IPv4 addresses mapped into IPv6 (::ffff:10.0.0.1) are their IPv4 selves.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  // The same in hex, as URLs write them (::ffff:c0a8:1 is 192.168.0.1).
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return PRIVATE.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return PRIVATE.check(bare, 'ipv6');
}

/** A deployment's allowance for private targets: everywhere, a host list, or nowhere. */
export type PrivateTargetAllowance = boolean | readonly string[];

const bareHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

export function privateTargetAllowed(allowance: PrivateTargetAllowance, hostname: string): boolean {
  return allowance === true || (Array.isArray(allowance) && allowance.map(bareHost).includes(bareHost(hostname)));
}

/** The refusal of a private target (a permanent failure: retrying does not change the address). */
export class PrivateTargetError extends Error {
  override name = 'PrivateTargetError';
}

/**
 * A `lookup` for node:http(s) requests: resolves as usual and refuses a name that resolves to a
 * private address unless the host is allowed. The check is on the address the socket then connects
 * to, so a name that changes its answer between a check and the connection gains nothing.
 */
export function guardedLookup(allowance: PrivateTargetAllowance) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { family: options.family as 0 | 4 | 6 | undefined, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (!privateTargetAllowed(allowance, hostname)) {
        const blocked = addresses.find((a) => isPrivateAddress(a.address));
        if (blocked) return callback(new PrivateTargetError(`${hostname} resolves to a private address (${blocked.address})`), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}
