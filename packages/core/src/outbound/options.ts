/**
 * The engine's outbound-event settings (`AgentPlatformOptions.outbound`), resolved.
 * @module
 */
import { DEFAULT_RETRY_DELAYS_MS } from './retry-schedule.js';

export interface OutboundOptions {
  /**
   * Let subscribers be reached at loopback, private and link-local addresses. Off by default: a
   * user could otherwise make the server call its own network (server-side request forgery).
   */
  allowPrivateAddresses?: boolean;
  /** Time limit of one attempt, in milliseconds. Default 15 s. */
  timeoutMs?: number;
  /** The waits between attempts; after the last the message fails. Default: 5 s up to 10 h, about a day in all. */
  retryDelaysMs?: readonly number[];
  /**
   * A subscription is disabled when this many attempts in a row have failed over at least this
   * long (with no success between). Default 8 attempts over 24 hours.
   */
  disableAfter?: { failures: number; ms: number };
  /** Messages one process sends at once. Default 8. */
  concurrency?: number;
  /** How often due messages are looked for besides wake-ups. Default 1 s. */
  pollIntervalMs?: number;
  /** Whether this process sends messages after `start()`. Default true. */
  send?: boolean;
  /** Jitter's source of randomness, in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export type ResolvedOutboundOptions = Required<Omit<OutboundOptions, 'disableAfter'>> & { disableAfter: { failures: number; ms: number } };

export function resolveOutboundOptions(options: OutboundOptions = {}): ResolvedOutboundOptions {
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  if (!delays.every((delay) => Number.isFinite(delay) && delay >= 0)) throw new Error('outbound.retryDelaysMs must be non-negative numbers');
  return {
    allowPrivateAddresses: options.allowPrivateAddresses ?? false,
    timeoutMs: options.timeoutMs ?? 15_000,
    retryDelaysMs: delays,
    disableAfter: options.disableAfter ?? { failures: 8, ms: 24 * 3_600_000 },
    concurrency: Math.max(1, options.concurrency ?? 8),
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    send: options.send ?? true,
    random: options.random ?? Math.random,
  };
}
