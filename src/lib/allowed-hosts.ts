// A run's `configuration.allowed_hosts`: which hosts its tools may reach. An entry is a host name or
// address (`api.example.com`, `127.0.0.1`), a wildcard for the subdomains of a domain
// (`*.example.com`, which does not match `example.com` itself), `*` for any host, and any of these
// with `:port` to allow one port only. Comparison ignores case; without a list, every host is allowed.

/** The host of `url` as entries name it (lowercase, IPv6 without brackets) and its port (the scheme's default when absent). */
function hostAndPort(url: URL): { host: string; port: string } {
  const host = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  return { host, port };
}

/** Splits `host:port` (an IPv6 address only in brackets: `[::1]:8080`). */
function parseEntry(entry: string): { pattern: string; port: string | null } {
  const value = entry.trim().toLowerCase();
  const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(value);
  if (bracketed) return { pattern: bracketed[1]!, port: bracketed[2] ?? null };
  const withPort = /^([^:]+):(\d+)$/.exec(value);
  if (withPort) return { pattern: withPort[1]!, port: withPort[2]! };
  return { pattern: value, port: null };
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** Whether `url` may be reached under `allowed` (undefined: no bound). */
export function isHostAllowed(allowed: readonly string[] | undefined, url: URL): boolean {
  if (!allowed) return true;
  const { host, port } = hostAndPort(url);
  return allowed.some((entry) => {
    const { pattern, port: onlyPort } = parseEntry(entry);
    return hostMatches(pattern, host) && (onlyPort === null || onlyPort === port);
  });
}
