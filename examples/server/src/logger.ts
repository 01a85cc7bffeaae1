import { pino, type Logger } from 'pino';

/** Structured logs; credentials in headers are redacted should anything ever log them. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-session-api-key"]', 'req.headers.cookie', '*.webhook_secret', '*.key', '*.token'],
      censor: '[redacted]',
    },
  });
}
