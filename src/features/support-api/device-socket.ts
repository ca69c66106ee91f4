// The device websocket (/api/envd/connect). A paired daemon connects with its device credential
// (Authorization: Bearer wsd_…, checked before the upgrade: a refused credential answers HTTP 401);
// the service sends requests ({id, type:"request", method, params}) and the daemon answers
// ({id, type:"response", result} or {id, type:"response", error:{code, message}}), optionally after
// frames of the same id that carry part of the answer ({id, type:"output"|"chunk", …}).
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../lib/errors.js';
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../services/deps.js';
import { authenticateDevice, markDeviceSeen } from './devices.js';
import { holdDevice } from './device-relay.js';
import { DaemonError, supportRuntime, type DeviceCallOptions, type DeviceConnection } from './runtime.js';

export const DEVICE_SOCKET_PATH = '/api/envd/connect';
const SEEN_RESOLUTION_MS = 30_000;
const PING_INTERVAL_MS = 25_000;

/** Maps a daemon's error answer onto the service's error codes. */
function daemonError(error: DaemonError): AppError {
  const message = error.message;
  switch (error.code) {
    case 'outside_roots':
      return new AppError('forbidden', message, { reason: 'outside_roots' });
    case 'not_found':
      return new AppError('not_found', message);
    case 'not_a_directory':
    case 'invalid_path':
      return new AppError('invalid_argument', message, { field: 'path' });
    default:
      return new AppError('unavailable', `the device failed: ${message}`);
  }
}

export function createDeviceWebSocketServer(deps: Deps) {
  const runtime = supportRuntime(deps);
  const wsServer = new WebSocketServer({
    noServer: true,
    maxPayload: 4 * 1024 * 1024,
    verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => {
      authenticateDevice(deps, info.req.headers.authorization).then(
        (device) => {
          if (!device) return done(false, 401, 'device credential unknown or revoked');
          (info.req as IncomingMessage & { device?: typeof device }).device = device;
          done(true);
        },
        (error) => {
          deps.logger.error({ err: error }, 'device authentication failed');
          done(false, 500, 'internal error');
        },
      );
    },
  });

  wsServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const device = (request as IncomingMessage & { device?: { id: string; workspaceId: string } }).device;
    if (!device) {
      socket.close(4401, 'unauthenticated');
      return;
    }
    const pending = new Map<
      string,
      { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout; onFrame?: DeviceCallOptions['onFrame'] }
    >();
    let lastSeen = Date.now();
    const seen = () => {
      if (Date.now() - lastSeen < SEEN_RESOLUTION_MS) return;
      lastSeen = Date.now();
      markDeviceSeen(deps, device.id).catch((error) => deps.logger.warn({ err: error }, 'could not record device last seen'));
    };
    const call = (method: string, params: Record<string, unknown>, options: DeviceCallOptions = {}) =>
      new Promise<unknown>((resolve, reject) => {
        const id = randomUUID();
        const timeoutMs = options.timeoutMs ?? deps.config.deviceRequestTimeoutMs;
        const onAbort = () => {
          if (pending.has(id) && socket.readyState === socket.OPEN)
            socket.send(JSON.stringify({ id: randomUUID(), type: 'request', method: 'abort', params: { request_id: id } }));
        };
        const settle = () => options.signal?.removeEventListener('abort', onAbort);
        const timer = setTimeout(() => {
          pending.delete(id);
          settle();
          reject(new AppError('unavailable', `the device did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (value) => (settle(), resolve(value)),
          reject: (error) => (settle(), reject(error)),
          timer,
          onFrame: options.onFrame,
        });
        socket.send(JSON.stringify({ id, type: 'request', method, params }));
        if (options.signal?.aborted) onAbort();
        else options.signal?.addEventListener('abort', onAbort, { once: true });
      });
    const connection: DeviceConnection = {
      deviceId: device.id,
      workspaceId: device.workspaceId,
      call,
      request(method, params) {
        return call(method, params).catch((error: unknown) => {
          throw error instanceof DaemonError ? daemonError(error) : error;
        });
      },
      close(code, reason) {
        socket.close(code, reason);
        // A daemon that does not answer the close handshake is cut off.
        setTimeout(() => socket.terminate(), 1_000).unref();
      },
    };
    // One live connection per device: a newer one replaces the older.
    runtime.devices.get(device.id)?.close(4409, 'replaced by a newer connection');
    runtime.devices.set(device.id, connection);
    // With several instances, requests for the device from the others are relayed here.
    const release = holdDevice(deps, connection);
    markDeviceSeen(deps, device.id).catch(() => undefined);
    deps.logger.info({ deviceId: device.id }, 'device connected');

    const ping = setInterval(() => socket.ping(), PING_INTERVAL_MS);
    ping.unref();
    socket.on('pong', seen);
    socket.on('message', (data) => {
      seen();
      let message: { id?: unknown; type?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } } & Record<
        string,
        unknown
      >;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (typeof message.id !== 'string') return;
      const waiter = pending.get(message.id);
      if (!waiter) return;
      if (message.type === 'output' || message.type === 'chunk') {
        waiter.onFrame?.(message);
        return;
      }
      if (message.type !== 'response') return;
      pending.delete(message.id);
      clearTimeout(waiter.timer);
      if (message.error)
        waiter.reject(
          new DaemonError(
            typeof message.error.code === 'string' ? message.error.code.slice(0, 64) : 'internal',
            typeof message.error.message === 'string' ? message.error.message.slice(0, 500) : 'the device refused the request',
          ),
        );
      else waiter.resolve(message.result);
    });
    socket.on('close', () => {
      clearInterval(ping);
      release();
      if (runtime.devices.get(device.id) === connection) runtime.devices.delete(device.id);
      for (const waiter of pending.values()) {
        clearTimeout(waiter.timer);
        waiter.reject(new AppError('device_offline', 'the device disconnected before answering'));
      }
      pending.clear();
      deps.logger.info({ deviceId: device.id }, 'device disconnected');
    });
  });

  return {
    wsServer,
    async close() {
      for (const client of wsServer.clients) client.terminate();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}
