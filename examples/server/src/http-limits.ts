/**
 * How long the reference servers give a client to send a request, read from the environment:
 * `AGENT_PLATFORM_HEADERS_TIMEOUT_SECONDS` (default 15) and
 * `AGENT_PLATFORM_REQUEST_TIMEOUT_SECONDS` (default 30: headers and body together; also the
 * API's own body deadline). Fractions are allowed; `0` disables one.
 * @module
 */
import { ConfigError } from './config.js';

export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000 };

function milliseconds(env: Record<string, string | undefined>, name: string, fallbackMs: number): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallbackMs;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new ConfigError(`${name} must be a number of seconds, 0 or more (0 disables it), got "${value}"`);
  return Math.round(seconds * 1000);
}

export function readHttpLimits(env: Record<string, string | undefined> = process.env): HttpLimits {
  return {
    headersTimeoutMs: milliseconds(env, 'AGENT_PLATFORM_HEADERS_TIMEOUT_SECONDS', DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    requestTimeoutMs: milliseconds(env, 'AGENT_PLATFORM_REQUEST_TIMEOUT_SECONDS', DEFAULT_HTTP_LIMITS.requestTimeoutMs),
  };
}
