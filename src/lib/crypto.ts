// Secrets at rest (AES-256-GCM with a key id, so keys can rotate), bearer tokens (random secrets
// stored only as SHA-256 digests) and passwords (scrypt).
import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export const TOKEN_PREFIX = {
  apiKey: 'wsk_',
  loginSession: 'wsl_',
  device: 'wsd_',
  pairingPoll: 'wsp_',
} as const;

export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// ── passwords ──
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// ── secrets at rest ──
export interface SecretBox {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
  encryptJson(value: unknown): string;
  decryptJson<T = unknown>(ciphertext: string): T;
}

/** Turns a configured secret into a 32-byte key: base64/hex of 32 bytes is used as is, anything else is hashed. */
export function keyFromSecret(secret: string): Buffer {
  const trimmed = secret.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const asBase64 = Buffer.from(trimmed, 'base64');
  if (asBase64.length === 32 && /^[A-Za-z0-9+/_-]+=*$/.test(trimmed)) return asBase64;
  return createHash('sha256').update(`workspace-agent-service:${trimmed}`).digest();
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * `current` encrypts; `previous` keys still decrypt, so an operator can rotate SECRET_KEY by moving
 * the old value to SECRET_KEY_PREVIOUS. Format: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url).
 */
export function createSecretBox(current: Buffer, previous: Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>([[keyId(current), current], ...previous.map((key) => [keyId(key), key] as [string, Buffer])]);
  const currentId = keyId(current);
  const box: SecretBox = {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(`v1.${currentId}`));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', currentId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(ciphertext) {
      const [version, kid, iv, tag, body] = ciphertext.split('.');
      const key = kid ? keys.get(kid) : undefined;
      if (version !== 'v1' || !key || !iv || !tag || body === undefined) {
        throw new Error(`cannot decrypt a secret sealed with key ${kid ?? '?'}: configure SECRET_KEY or SECRET_KEY_PREVIOUS`);
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(`v1.${kid}`));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    encryptJson(value) {
      return box.encrypt(JSON.stringify(value));
    },
    decryptJson<T>(ciphertext: string) {
      return JSON.parse(box.decrypt(ciphertext)) as T;
    },
  };
  return box;
}
