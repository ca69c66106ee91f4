// The address links back to the service are made with (the OAuth callback of MCP connections):
// PUBLIC_URL as the operator wrote it (checked, without a trailing slash), else the listening address.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { publicBaseUrl, recordListeningUrl } from '../../src/services/service-url.js';
import type { Deps } from '../../src/services/deps.js';

const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });

describe('the service URL', () => {
  it('reads PUBLIC_URL and refuses what cannot be a base address', () => {
    expect(load({}).publicUrl).toBeNull();
    expect(load({ PUBLIC_URL: 'https://agents.example.com/' }).publicUrl).toBe('https://agents.example.com');
    expect(load({ PUBLIC_URL: 'https://example.com/agents//' }).publicUrl).toBe('https://example.com/agents');
    for (const bad of ['agents.example.com', 'ftp://example.com', 'https://example.com/?a=1', 'https://example.com/#x'])
      expect(() => load({ PUBLIC_URL: bad }), bad).toThrow(ConfigError);
  });

  it('prefers PUBLIC_URL, then the address the server listens on, then the configured host and port', () => {
    const deps = (publicUrl: string | null) => ({ config: { ...load({ PORT: '8181' }), publicUrl } }) as unknown as Deps;
    const configured = deps(null);
    expect(publicBaseUrl(configured)).toBe('http://127.0.0.1:8181');
    recordListeningUrl(configured, 'http://127.0.0.1:40123');
    expect(publicBaseUrl(configured)).toBe('http://127.0.0.1:40123');
    const behindProxy = deps('https://agents.example.com');
    recordListeningUrl(behindProxy, 'http://127.0.0.1:40123');
    expect(publicBaseUrl(behindProxy)).toBe('https://agents.example.com');
  });
});
