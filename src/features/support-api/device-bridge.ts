// The support layer's DeviceBridge (src/providers/device-bridge.ts): environment drivers reach a
// paired device's daemon through it. It checks the device against the database (workspace, status)
// and sends the request over the live websocket when this instance holds it, else (REDIS_URL) relays
// it to the instance that does (./device-relay.ts); a device no instance holds is offline.
import type { Deps } from '../../services/deps.js';
import { AppError } from '../../lib/errors.js';
import { looksLikeId } from '../../lib/ids.js';
import { DeviceBridgeError, type DeviceBridge } from '../../providers/device-bridge.js';
import { DaemonError, supportRuntime } from './runtime.js';
import { relayDeviceRequest } from './device-relay.js';

export function createDeviceBridge(deps: Deps): DeviceBridge {
  const find = async (workspaceId: string, deviceId: string) => {
    if (!looksLikeId('device', deviceId)) return null;
    const row = await deps.db.device.findUnique({ where: { id: deviceId } });
    if (!row || row.workspaceId !== workspaceId) return null;
    const status = row.status === 'active' && !row.revokedAt ? ('active' as const) : ('revoked' as const);
    return { id: row.id, status, online: status === 'active' && supportRuntime(deps).devices.has(row.id), lastSeenAt: row.lastSeenAt };
  };
  return {
    find,
    async request(workspaceId, deviceId, method, params, options) {
      const device = await find(workspaceId, deviceId);
      if (!device) throw new DeviceBridgeError('unknown_device', `device ${deviceId} is not a device of this workspace`);
      if (device.status !== 'active') throw new DeviceBridgeError('revoked', `device ${deviceId} is revoked`);
      const connection = supportRuntime(deps).devices.get(deviceId);
      try {
        if (connection) return await connection.call(method, params, options);
        const relayed = await relayDeviceRequest(deps, deviceId, method, params, options);
        if (relayed) return relayed.result;
      } catch (error) {
        if (error instanceof DaemonError) throw new DeviceBridgeError(error.code, error.message);
        if (error instanceof AppError) throw new DeviceBridgeError('no_answer', error.message);
        throw error;
      }
      throw new DeviceBridgeError(
        'offline',
        `device ${deviceId} is not connected${device.lastSeenAt ? ` (last seen ${device.lastSeenAt.toISOString()})` : ''}; start its daemon (envd serve --allow-environments) and try again`,
      );
    },
  };
}
