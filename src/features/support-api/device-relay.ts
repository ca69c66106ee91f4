// Device requests across service instances (REDIS_URL). A device's websocket lives on one instance;
// a run worker on another instance reaches the device by relaying: the holding instance records
// itself in Redis (`wsa:device-holder:<device id>`, refreshed while the socket lives) and listens on
// the device's request topic; a requester publishes the request there and receives the daemon's
// frames and answer on its own reply topic, in order (one publishing connection per instance).
// Without REDIS_URL there is one instance and nothing is relayed.
import { randomUUID } from 'node:crypto';
import { AppError } from '../../lib/errors.js';
import { listen, onReconnected, redisClientsOf, redisReady, subscriptionsActive } from '../../lib/events.js';
import { unavailable } from '../../lib/errors.js';
import type { Deps } from '../../services/deps.js';
import type { DeviceRelayReply, DeviceRelayRequest } from '../../services/event-topics.js';
import { DeviceBridgeError, type DeviceRequestOptions } from '../../providers/device-bridge.js';
import { DaemonError, supportRuntime, type DeviceConnection } from './runtime.js';

const HOLDER_TTL_SECONDS = 90;
const HOLDER_REFRESH_MS = 30_000;
/** The holder answers `no_answer` at the request's own timeout; the requester waits this much longer for that answer. */
const RELAY_GRACE_MS = 5_000;

const holderKey = (deviceId: string) => `wsa:device-holder:${deviceId}`;
// Deletes the holder record only if it is still this instance's (a newer connection elsewhere keeps its own).
const RELEASE_SCRIPT = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * While `connection` is the device's live connection on this instance, serves relayed requests for
 * it. Answers a function that stops serving (the connection closed).
 */
export function holdDevice(deps: Deps, connection: DeviceConnection): () => void {
  const redis = redisClientsOf(deps.events);
  if (!redis) return () => undefined;
  const { instanceId } = supportRuntime(deps);
  const aborts = new Map<string, AbortController>();
  let held = true;
  const reply = (to: string, payload: DeviceRelayReply) => void deps.events.publish('deviceRelayReply', to, payload);
  const unlisten = listen(deps.events, 'deviceRelayRequest', connection.deviceId, (payload) => {
    const request = payload as DeviceRelayRequest;
    if (request.to !== instanceId) return;
    if (request.abort) {
      aborts.get(request.relayId)?.abort();
      return;
    }
    const controller = new AbortController();
    aborts.set(request.relayId, controller);
    connection
      .call(request.method, request.params, {
        timeoutMs: request.timeoutMs,
        signal: controller.signal,
        onFrame: (frame) => reply(request.from, { relayId: request.relayId, frame }),
      })
      .then(
        (result) => reply(request.from, { relayId: request.relayId, result: result ?? null }),
        (error: unknown) =>
          reply(request.from, {
            relayId: request.relayId,
            error:
              error instanceof DaemonError
                ? { code: error.code, message: error.message }
                : { code: 'no_answer', message: (error as Error).message },
          }),
      )
      .finally(() => aborts.delete(request.relayId));
  });
  const record = () =>
    redis.publish.set(holderKey(connection.deviceId), instanceId, 'EX', HOLDER_TTL_SECONDS).catch((error: unknown) => {
      deps.logger.warn({ err: error, deviceId: connection.deviceId }, 'could not record the device holder');
    });
  // Recorded only once the request topic is subscribed, so a relayed request is never published into the void.
  void subscriptionsActive(deps.events).then(() => {
    if (held) void record();
  });
  const refresh = setInterval(() => {
    if (held) void record();
  }, HOLDER_REFRESH_MS);
  refresh.unref();
  // A Redis that restarted may have forgotten the holder: recorded again at once, not at the next refresh.
  const unlistenReconnected = onReconnected(deps.events, () => {
    if (held) void record();
  });
  return () => {
    held = false;
    clearInterval(refresh);
    unlisten();
    unlistenReconnected();
    redis.publish.eval(RELEASE_SCRIPT, 1, holderKey(connection.deviceId), instanceId).catch(() => undefined);
  };
}

interface Waiter {
  onFrame?: (frame: Record<string, unknown>) => void;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

const replyListeners = new WeakMap<Deps, { waiters: Map<string, Waiter>; ready: Promise<void> }>();

/** This instance's reply topic, subscribed once. */
function replies(deps: Deps) {
  let entry = replyListeners.get(deps);
  if (!entry) {
    const waiters = new Map<string, Waiter>();
    listen(deps.events, 'deviceRelayReply', supportRuntime(deps).instanceId, (payload) => {
      const reply = payload as DeviceRelayReply;
      const waiter = waiters.get(reply.relayId);
      if (!waiter) return;
      if (reply.frame) {
        waiter.onFrame?.(reply.frame);
        return;
      }
      waiters.delete(reply.relayId);
      if (reply.error) waiter.reject(new DeviceBridgeError(reply.error.code, reply.error.message));
      else waiter.resolve(reply.result);
    });
    entry = { waiters, ready: subscriptionsActive(deps.events) };
    replyListeners.set(deps, entry);
  }
  return entry;
}

/**
 * Sends a request to the instance holding the device's socket. Answers null when no instance holds
 * it (or there is no Redis): the device is offline.
 */
export async function relayDeviceRequest(
  deps: Deps,
  deviceId: string,
  method: string,
  params: Record<string, unknown>,
  options: DeviceRequestOptions = {},
): Promise<{ result: unknown } | null> {
  const redis = redisClientsOf(deps.events);
  if (!redis) return null;
  // Which instance holds the device is only known to Redis: without it the answer is 503, not a wait.
  if (!redisReady(deps.events)) throw unavailable('redis');
  const holder = await redis.publish.get(holderKey(deviceId));
  const { instanceId } = supportRuntime(deps);
  if (!holder || holder === instanceId) return null;
  const { waiters, ready } = replies(deps);
  await ready;
  const relayId = randomUUID();
  const timeoutMs = options.timeoutMs ?? deps.config.deviceRequestTimeoutMs;
  const result = await new Promise<unknown>((resolve, reject) => {
    const onAbort = () =>
      void deps.events.publish('deviceRelayRequest', deviceId, { relayId, from: instanceId, to: holder, abort: true, method, params: {} });
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const timer = setTimeout(() => {
      waiters.delete(relayId);
      settle();
      reject(new AppError('unavailable', `the instance holding device ${deviceId} did not answer within ${timeoutMs} ms`));
    }, timeoutMs + RELAY_GRACE_MS);
    waiters.set(relayId, {
      onFrame: options.onFrame,
      resolve: (value) => (settle(), resolve(value)),
      reject: (error) => (settle(), reject(error)),
    });
    void deps.events.publish('deviceRelayRequest', deviceId, { relayId, from: instanceId, to: holder, method, params, timeoutMs });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  return { result };
}
