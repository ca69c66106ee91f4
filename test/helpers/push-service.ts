// A loopback push service (the protocol peer of RFC 8030): HTTPS with a throw-away certificate,
// it verifies the VAPID JWT of each push (RFC 8292: ES256 signature with the `k` key, audience,
// expiry, subject) and decrypts the aes128gcm payload (RFC 8291) with the browser-side keys it
// handed out, as a browser's push service and user agent would.
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedPush {
  token: string;
  payload: any;
  jwt: { header: any; claims: any };
  vapidKey: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface BrowserSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  token: string;
}

export interface PushService {
  url: string;
  caFile: string;
  received: ReceivedPush[];
  failures: string[];
  subscribe(): BrowserSubscription;
  /** Answer pushes to this subscription with a status (e.g. 410 gone) instead of accepting them. */
  answer(token: string, status: number): void;
  /** Delay answers (ms). */
  /** Holds every push request until the returned function is called (answers nothing meanwhile). */
  hold(): () => void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  stop(): Promise<void>;
}

const b64url = (value: string) => Buffer.from(value, 'base64url');

function verifyVapid(authorization: string | undefined, endpointOrigin: string): { header: any; claims: any; key: string } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`Authorization is not "vapid t=…, k=…": ${authorization}`);
  const [, jwt, key] = match as unknown as [string, string, string];
  const [headerPart, claimsPart, signaturePart] = jwt.split('.');
  if (!headerPart || !claimsPart || !signaturePart) throw new Error('malformed JWT');
  const header = JSON.parse(b64url(headerPart).toString('utf8'));
  const claims = JSON.parse(b64url(claimsPart).toString('utf8'));
  if (header.alg !== 'ES256') throw new Error(`JWT alg ${header.alg}`);
  const raw = b64url(key);
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('k is not an uncompressed P-256 key');
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${headerPart}.${claimsPart}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    b64url(signaturePart),
  );
  if (!ok) throw new Error('JWT signature does not verify with k');
  if (claims.aud !== endpointOrigin) throw new Error(`JWT aud ${claims.aud} is not ${endpointOrigin}`);
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + 24 * 3600)
    throw new Error(`JWT exp ${claims.exp} out of range`);
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) throw new Error(`JWT sub ${claims.sub}`);
  return { header, claims, key };
}

function decryptAes128gcm(body: Buffer, browser: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const serverKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (ciphertext.length > recordSize) throw new Error('more than one record');
  const shared = browser.ecdh.computeSecret(serverKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browser.ecdh.getPublicKey(), serverKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, browser.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('last record lacks the 0x02 delimiter');
  return padded.subarray(0, end);
}

export async function startPushService(): Promise<PushService> {
  const dir = mkdtempSync(join(tmpdir(), 'wsa-push-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const browsers = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();
  const answers = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const failures: string[] = [];
  let held: Promise<void> | null = null;
  let origin = '';
  const server: Server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        if (held) await held;
        const token = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
        const browser = token ? browsers.get(token) : undefined;
        if (req.method !== 'POST' || !token || !browser) {
          res.writeHead(404).end();
          return;
        }
        if (answers.has(token)) {
          res.writeHead(answers.get(token)!).end();
          return;
        }
        try {
          if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`Content-Encoding ${req.headers['content-encoding']}`);
          if (!req.headers.ttl || !/^\d+$/.test(String(req.headers.ttl))) throw new Error('TTL header missing');
          const jwt = verifyVapid(req.headers.authorization, origin);
          const payload = JSON.parse(decryptAes128gcm(Buffer.concat(chunks), browser).toString('utf8'));
          received.push({ token, payload, jwt: { header: jwt.header, claims: jwt.claims }, vapidKey: jwt.key, headers: req.headers });
          res.writeHead(201, { location: `/messages/${randomBytes(8).toString('hex')}` }).end();
        } catch (error) {
          failures.push((error as Error).message);
          res.writeHead(400).end((error as Error).message);
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    caFile: join(dir, 'cert.pem'),
    received,
    failures,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const token = randomBytes(12).toString('base64url');
      browsers.set(token, { ecdh, auth });
      return {
        endpoint: `${origin}/push/${token}`,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
        token,
      };
    },
    answer(token, status) {
      answers.set(token, status);
    },
    hold() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      return received;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
