// In-process state of the support services, one per app instance (keyed by its Deps): live device
// connections, the pairing rate limiter, VAPID keys. Nothing here is a business rule.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../services/deps.js';
import { stopPresenceWatchers } from './presence-watch.js';

/** A daemon's error answer ({code, message}), as it gave it. */
export class DaemonError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DaemonError';
  }
}

export interface DeviceCallOptions {
  /** How long to wait for the answer (default DEVICE_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Frames the daemon sends before its answer (streamed output, file content chunks). */
  onFrame?: (frame: Record<string, unknown>) => void;
  /** Aborting sends the daemon an `abort` for this request (it kills the command) and still waits for its answer. */
  signal?: AbortSignal;
}

export interface DeviceConnection {
  deviceId: string;
  workspaceId: string;
  /** Sends a request to the daemon and resolves with its answer (rejects on timeout or close; a daemon error as an AppError). */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  /**
   * The same, lower level: a daemon error rejects as a DaemonError with the daemon's own code; a
   * timeout or a closed connection as an AppError (`unavailable`, `device_offline`).
   */
  call(method: string, params: Record<string, unknown>, options?: DeviceCallOptions): Promise<unknown>;
  close(code: number, reason: string): void;
}

export interface SupportRuntime {
  startedAt: Date;
  /** This instance's random id (relayed device requests are answered to it). */
  instanceId: string;
  devices: Map<string, DeviceConnection>; // device id → its live connection
  pairingAttempts: Map<string, number[]>; // client address → request times (ms)
  vapid: Promise<{ publicKey: string; privateKey: string; subject: string; source: 'config' | 'stored' | 'generated' }> | null;
  /** Run workers that are up (the run engine sets it). */
  runWorkers: number;
}

const runtimes = new WeakMap<Deps, SupportRuntime>();

export function supportRuntime(deps: Deps): SupportRuntime {
  let runtime = runtimes.get(deps);
  if (!runtime) {
    runtime = {
      startedAt: new Date(),
      instanceId: randomUUID(),
      devices: new Map(),
      pairingAttempts: new Map(),
      vapid: null,
      runWorkers: 0,
    };
    runtimes.set(deps, runtime);
  }
  return runtime;
}

/** Stops the presence watchers and closes device connections (app.stop()). */
export function stopSupportRuntime(deps: Deps): void {
  stopPresenceWatchers(deps);
  const runtime = runtimes.get(deps);
  if (!runtime) return;
  for (const connection of runtime.devices.values()) connection.close(1001, 'service stopping');
  runtime.devices.clear();
}
