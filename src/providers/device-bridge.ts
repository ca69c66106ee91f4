// The seam between environment drivers and paired devices. A driver that runs environments on a
// paired device (the `envd` type) needs the device's live connection, which belongs to the support
// layer (src/features/support-api/device-socket.ts). Instead of importing it, drivers receive a DeviceBridge in
// their context; the app registers the support layer's bridge for its deps when it starts
// (src/features/support-api/device-bridge.ts), and the services put it in every driver context.

/** What the bridge knows of a device of a workspace. */
export interface BridgedDevice {
  id: string;
  status: 'active' | 'revoked';
  /** Whether its daemon is connected (to the instance that holds its socket). */
  online: boolean;
  lastSeenAt: Date | null;
}

export interface DeviceRequestOptions {
  /** How long to wait for the daemon's answer. */
  timeoutMs?: number;
  /** Frames the daemon sends before its answer (streamed output, file content). */
  onFrame?: (frame: Record<string, unknown>) => void;
  /** Aborting asks the daemon to abort the request (it kills the command); its answer still comes. */
  signal?: AbortSignal;
}

/** Why a device request did not get an answer from the daemon, or the daemon's own refusal. */
export class DeviceBridgeError extends Error {
  constructor(
    /**
     * `unknown_device`: no such device in the workspace; `revoked`; `offline`: the daemon is not
     * connected; `no_answer`: it did not answer in time or went away; anything else is the daemon's
     * own error code (`outside_roots`, `not_found`, `environments_disabled`, …).
     */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DeviceBridgeError';
  }
}

export interface DeviceBridge {
  /** The device if it belongs to the workspace, else null. */
  find(workspaceId: string, deviceId: string): Promise<BridgedDevice | null>;
  /** Sends a request to an active, connected device of the workspace and resolves with its answer; rejects with DeviceBridgeError. */
  request(
    workspaceId: string,
    deviceId: string,
    method: string,
    params: Record<string, unknown>,
    options?: DeviceRequestOptions,
  ): Promise<unknown>;
}

const bridges = new WeakMap<object, DeviceBridge>();

/** Registers the bridge of an app (keyed by its deps); the services look it up with `deviceBridgeOf`. */
export function registerDeviceBridge(owner: object, bridge: DeviceBridge): void {
  bridges.set(owner, bridge);
}

export function deviceBridgeOf(owner: object): DeviceBridge | null {
  return bridges.get(owner) ?? null;
}
