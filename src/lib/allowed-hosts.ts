// A run's `configuration.allowed_hosts`: which hosts its tools may reach (web_fetch, the
// `http_request` plugin, MCP connections — every tool that leaves the service uses this one rule).
//
//   absent            → any host (other policies, such as the endpoint policy, still apply)
//   []                → no host
//   `api.example.com` → exactly that host, any port
//   `host:port`       → that host on that port only (IPv6 in brackets: `[::1]:8080`); a URL without
//                       a port is on its scheme's default port (https 443, http 80)
//   `*.example.com`   → example.com itself and every host below it (not `badexample.com`)
//   `*`               → any host (`*:8443`: any host on that port)
//
// Case and a trailing dot do not matter; IPv6 addresses may be written with or without brackets.

/** A host as entries and URLs are compared: lower case, no IPv6 brackets, no trailing dot. */
const bare = (host: string) =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/** The port a URL reaches: its own, else its scheme's default ('' for a scheme without one). */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
}

/** Splits an entry into its host pattern and its port (null: any port). */
function parseEntry(entry: string): { pattern: string; port: string | null } {
  const value = entry.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) return { pattern: bracketed[1]!, port: bracketed[2] ?? null };
  // One colon only: a bare IPv6 address (several colons) has no port.
  const withPort = /^([^:]+):(\d{1,5})$/.exec(value);
  if (withPort) return { pattern: bare(withPort[1]!), port: withPort[2]! };
  return { pattern: bare(value), port: null };
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) {
    const domain = pattern.slice(2);
    return host === domain || host.endsWith(`.${domain}`);
  }
  return host === pattern;
}

/** Whether `url` may be reached under `allowedHosts` (undefined: no list, so any host). */
export function isHostAllowed(allowedHosts: readonly string[] | undefined, url: URL): boolean {
  if (!allowedHosts) return true;
  const host = bare(url.hostname);
  const port = portOf(url);
  return allowedHosts.some((entry) => {
    const { pattern, port: onlyPort } = parseEntry(entry);
    return hostMatches(pattern, host) && (onlyPort === null || onlyPort === port);
  });
}
