// The one `allowed_hosts` rule every tool that leaves the service uses (web_fetch, http_request, MCP
// connections): absent = any host, [] = none, an exact host (any port), host:port, `*.domain` = the
// domain and its subdomains, `*` = any host.
import { describe, expect, it } from 'vitest';
import { isHostAllowed } from '../../src/lib/allowed-hosts.js';

const allowed = (url: string, hosts: string[] | undefined) => isHostAllowed(hosts, new URL(url));

describe('allowed_hosts', () => {
  it('without a list admits every host; an empty list none', () => {
    expect(allowed('https://anything.test/', undefined)).toBe(true);
    expect(allowed('http://127.0.0.1:9/', undefined)).toBe(true);
    expect(allowed('https://example.com/', [])).toBe(false);
  });

  it('an exact host admits that host on any port, not its subdomains; case and a trailing dot do not matter', () => {
    expect(allowed('https://EXAMPLE.com/mcp', ['Example.com'])).toBe(true);
    expect(allowed('https://example.com:8443/', ['example.com'])).toBe(true);
    expect(allowed('https://docs.example.com./a', ['docs.example.com'])).toBe(true);
    expect(allowed('https://docs.example.com/a', ['docs.example.com.'])).toBe(true);
    expect(allowed('https://api.example.com/', ['example.com'])).toBe(false);
    expect(allowed('https://example.com/', ['docs.example.com'])).toBe(false);
    expect(allowed('http://127.0.0.1:3000/', ['127.0.0.1'])).toBe(true);
  });

  it('*.domain admits the domain itself and every host below it, nothing that only ends like it', () => {
    expect(allowed('https://example.com/', ['*.example.com'])).toBe(true);
    expect(allowed('https://api.example.com/', ['*.example.com'])).toBe(true);
    expect(allowed('https://a.b.example.com/', ['*.Example.com'])).toBe(true);
    expect(allowed('https://badexample.com/', ['*.example.com'])).toBe(false);
    expect(allowed('https://example.com.evil.test/', ['*.example.com'])).toBe(false);
  });

  it('host:port admits that port only; a URL without a port is on its scheme default', () => {
    expect(allowed('http://127.0.0.1:8080/mcp', ['127.0.0.1:8080'])).toBe(true);
    expect(allowed('http://127.0.0.1:9090/mcp', ['127.0.0.1:8080'])).toBe(false);
    expect(allowed('https://example.com/', ['example.com:443'])).toBe(true);
    expect(allowed('http://example.com/', ['example.com:80'])).toBe(true);
    expect(allowed('https://example.com/', ['example.com:8443'])).toBe(false);
    expect(allowed('https://api.example.com:8443/', ['*.example.com:8443'])).toBe(true);
    expect(allowed('https://api.example.com/', ['*.example.com:8443'])).toBe(false);
  });

  it('IPv6 addresses with or without brackets; a port only in brackets', () => {
    expect(allowed('http://[::1]:3000/', ['::1'])).toBe(true);
    expect(allowed('http://[::1]:3000/', ['[::1]'])).toBe(true);
    expect(allowed('http://[::1]:3000/', ['[::1]:3000'])).toBe(true);
    expect(allowed('http://[::1]:3001/', ['[::1]:3000'])).toBe(false);
    expect(allowed('http://[::2]/', ['::1'])).toBe(false);
  });

  it('* admits any host (with a port: any host on that port)', () => {
    expect(allowed('https://x.y/', ['*'])).toBe(true);
    expect(allowed('http://[::1]/', ['*'])).toBe(true);
    expect(allowed('https://x.y:8443/', ['*:8443'])).toBe(true);
    expect(allowed('https://x.y/', ['*:8443'])).toBe(false);
  });

  it('one matching entry is enough', () => {
    expect(allowed('https://b.test/', ['a.test', 'b.test'])).toBe(true);
    expect(allowed('https://c.test/', ['a.test', 'b.test'])).toBe(false);
  });
});
