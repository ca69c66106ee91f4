// Structured JSON logs. Credentials never reach a log line: the usual carriers are redacted.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: 'workspace-agent-service' },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.password',
        '*.credential',
        '*.token',
        'password',
        'credential',
        'token',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
