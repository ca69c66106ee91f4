// METRICS_PORT: GET /metrics on a port of its own, without credentials, for scrapers that cannot send
// a bearer token (or should not hold one). It listens on METRICS_HOST, 127.0.0.1 unless set: an
// address other machines reach is the operator's choice, made with a firewall or network policy in
// mind. Only GET /metrics is served there; anything else is 404.
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendMetrics } from './metrics-route.js';
import type { Metrics } from './metrics.js';

export class MetricsServer {
  private server: Server | null = null;

  constructor(
    private readonly metrics: Metrics,
    private readonly options: { port: number; host: string },
  ) {}

  /** Listens; returns the URL it serves (port 0 picks a free one). */
  async start(): Promise<string> {
    const app = express();
    app.disable('x-powered-by');
    app.get('/metrics', (_req, res, next) => {
      sendMetrics(this.metrics, res).catch(next);
    });
    app.use((_req, res) => {
      res.status(404).json({ error: { code: 'not_found', message: 'this port serves GET /metrics only' } });
    });
    const server = createServer(app);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host}:${port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
