// The port listened on through HTTP_ACCEPT_SOCKETS sockets (src/lib/accept-sockets.ts): Node accepts
// one new connection per listening socket per event-loop iteration, so a busy loop with one socket
// leaves a burst of clients in the kernel's accept queue. Read from the kernel's side (/proc/net/tcp):
// how many sockets listen on the port, and how many queued connections one iteration takes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { listenWithAcceptSockets } from '../../src/lib/accept-sockets.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const LISTEN = '0A';

/** The listening sockets on 127.0.0.1:port, each with its accept queue's length (rx_queue). */
function listeners(port: number): { queued: number }[] {
  const rows = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1);
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter((fields) => fields[1] === local && fields[3] === LISTEN)
    .map((fields) => ({ queued: parseInt(fields[4]!.split(':')[1]!, 16) }));
}

/** Connects `count` sockets to the port from another process and returns once all are connected (queued, not accepted). */
function connectFromAnotherProcess(port: number, count: number) {
  const script = `
    const net = require('node:net');
    let open = 0;
    for (let i = 0; i < ${count}; i++) {
      const socket = net.connect(${port}, '127.0.0.1', () => { if (++open === ${count}) process.exit(0); });
      socket.on('error', (error) => { console.error(error); process.exit(1); });
    }`;
  execFileSync(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 30_000 });
}

/** Queued connections the next event-loop iteration accepts, with this process's loop held until all are queued. */
async function acceptedInOneIteration(port: number, count: number): Promise<number> {
  // In the check phase now: the synchronous wait below ends right before the next iteration's poll.
  await new Promise((resolve) => setImmediate(resolve));
  connectFromAnotherProcess(port, count);
  const queued = listeners(port).reduce((sum, socket) => sum + socket.queued, 0);
  // Timers, then poll (the accepts), then this.
  const after = await new Promise<number>((resolve) => setImmediate(() => resolve(listeners(port).reduce((sum, s) => sum + s.queued, 0))));
  return queued - after;
}

const portOf = (t: TestApp) => Number(new URL(t.url).port);
const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.stop();
});

describe.runIf(process.platform === 'linux')('HTTP_ACCEPT_SOCKETS', () => {
  it('listens through that many sockets, and one busy iteration accepts one connection from each', async () => {
    const t = await startTestApp({ httpAcceptSockets: 4 });
    apps.push(t);
    expect(listeners(portOf(t))).toHaveLength(4);
    // 64 connections spread by the kernel over 4 sockets: each has some (all but certainly).
    expect(await acceptedInOneIteration(portOf(t), 64)).toBe(4);
  });

  it('with one socket, one busy iteration accepts one connection (what a burst of clients waited behind)', async () => {
    const t = await startTestApp({ httpAcceptSockets: 1 });
    apps.push(t);
    expect(listeners(portOf(t))).toHaveLength(1);
    expect(await acceptedInOneIteration(portOf(t), 16)).toBe(1);
  });

  it('refuses to start on a port another instance listens on, rather than splitting its clients', async () => {
    const t = await startTestApp({ httpAcceptSockets: 4 });
    apps.push(t);
    // What the service's start does with PORT set to the running one's port.
    const second = createServer();
    await expect(listenWithAcceptSockets(second, { host: '127.0.0.1', port: portOf(t), count: 4 }, () => undefined)).rejects.toThrow(
      /EADDRINUSE/,
    );
    expect(second.listening).toBe(false);
    expect(listeners(portOf(t))).toHaveLength(4);
  });

  it('hands the HTTP server every connection as its own socket would have arrived: Nagle off, half-open allowed', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    const accepted: { allowHalfOpen: boolean; noDelay: unknown }[] = [];
    server.on('connection', (socket) => {
      const noDelay = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'kSetNoDelay');
      accepted.push({ allowHalfOpen: socket.allowHalfOpen, noDelay: noDelay && (socket as unknown as Record<symbol, unknown>)[noDelay] });
    });
    const sockets = await listenWithAcceptSockets(server, { host: '127.0.0.1', port: 0, count: 4 }, () => undefined);
    try {
      const port = (server.address() as { port: number }).port;
      expect(listeners(port)).toHaveLength(4);
      const answers = await Promise.all(
        Array.from({ length: 32 }, () => fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } }).then((r) => r.text())),
      );
      expect(answers.every((text) => text === 'ok')).toBe(true);
      expect(accepted).toHaveLength(32);
      expect(accepted.every((socket) => socket.allowHalfOpen && socket.noDelay === true)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await sockets.close();
    }
  });

  it('serves requests and websocket upgrades through every socket, and stops listening on all of them at stop', async () => {
    const t = await startTestApp({ httpAcceptSockets: 4 });
    // Stopped by the test itself; by afterEach only when an assertion ends it before that.
    apps.push(t);
    const port = portOf(t);
    // A fresh connection per request: the kernel spreads them over the four sockets.
    const answers = await Promise.all(
      Array.from({ length: 48 }, () => fetch(`${t.url}/healthz`, { headers: { connection: 'close' } }).then((r) => r.status)),
    );
    expect(answers.every((status) => status === 200)).toBe(true);
    const sockets = await Promise.all(
      Array.from(
        { length: 12 },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const socket = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
            socket.once('open', () =>
              socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${t.apiKey}` } })),
            );
            socket.on('message', (data) => {
              if (JSON.parse(String(data)).type === 'connection_ack') resolve(socket);
            });
            socket.once('error', reject);
          }),
      ),
    );
    for (const socket of sockets) socket.close();
    apps.splice(apps.indexOf(t), 1);
    await t.stop();
    expect(listeners(port)).toHaveLength(0);
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
  });
});
