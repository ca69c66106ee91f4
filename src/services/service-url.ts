// The address the service is reached at, for links it hands out that must come back to it (an OAuth
// callback): PUBLIC_URL when the operator set it (behind a proxy the listening address is not what
// browsers see), else the address the HTTP server listens on, known once it listens.
import type { Deps } from './deps.js';

const listening = new WeakMap<Deps, string>();

/** Called by the app once its server listens (the port may have been chosen by the system). */
export function recordListeningUrl(deps: Deps, url: string): void {
  listening.set(deps, url);
}

export function publicBaseUrl(deps: Deps): string {
  return deps.config.publicUrl ?? listening.get(deps) ?? `http://${deps.config.host}:${deps.config.port}`;
}
