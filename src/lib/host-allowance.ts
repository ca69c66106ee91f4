// Which addresses a run's tools may reach on the model's behalf: the run's `allowed_hosts` (when it
// has them) and the deployment's endpoint policy (HTTPS, plain HTTP only where the operator allows it).
// Pure functions: the callers pass the run's list and the deployment's allowance. The list's rule
// is the one every tool uses (allowed-hosts.ts).
import { isHostAllowed } from './allowed-hosts.js';

/** The deployment's plain-HTTP allowance (ALLOW_PLAIN_HTTP_ENDPOINTS): everywhere, a host list, or nowhere. */
export type PlainHttpAllowance = boolean | readonly string[];

const bare = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

export function plainHttpAllowed(allowance: PlainHttpAllowance, hostname: string): boolean {
  return allowance === true || (Array.isArray(allowance) && allowance.map(bare).includes(bare(hostname)));
}

/**
 * Why a tool may not reach `address`, or null when it may: only http(s) URLs; plain HTTP only under
 * the allowance; with `allowedHosts` (the run's list; absent means no list), only those hosts.
 */
export function urlRefusal(address: string, rules: { allowedHosts?: readonly string[]; plainHttp: PlainHttpAllowance }): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return `${JSON.stringify(address.slice(0, 200))} is not a URL`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} URLs cannot be fetched (http and https only)`;
  if (url.username || url.password) return 'URLs with credentials in them cannot be fetched';
  if (!isHostAllowed(rules.allowedHosts, url)) return `the host ${url.host} is not in this run's allowed_hosts`;
  if (url.protocol === 'http:' && !plainHttpAllowed(rules.plainHttp, url.hostname))
    return `${url.host} would be reached over plain HTTP, which this deployment does not allow (ALLOW_PLAIN_HTTP_ENDPOINTS)`;
  return null;
}
