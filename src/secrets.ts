// The credential-encryption key: SECRET_KEY when configured; otherwise one generated on first
// start and kept in DATA_DIR/secret-key (0600), so an embedded install needs no setup.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from './config.js';
import { createSecretBox, keyFromSecret, type SecretBox } from './lib/crypto.js';
import type { Logger } from './lib/logger.js';

export function loadSecretBox(config: Config, logger: Logger): SecretBox {
  let secret = config.secretKey;
  if (!secret) {
    const file = join(config.dataDir, 'secret-key');
    if (!existsSync(file)) {
      if (config.env === 'production' && config.databaseUrl) {
        throw new Error('SECRET_KEY is required in production with DATABASE_URL (a generated key would be lost with this machine)');
      }
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
      logger.warn({ file }, 'generated a credential-encryption key; back it up or set SECRET_KEY');
    }
    secret = readFileSync(file, 'utf8').trim();
  }
  return createSecretBox(keyFromSecret(secret), config.secretKeyPrevious.map(keyFromSecret));
}
