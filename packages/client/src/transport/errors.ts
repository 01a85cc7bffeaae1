/**
 * What the client throws. Three cases a caller handles differently:
 * - {@link AgentPlatformError}: the service answered with a non-2xx status (fix the input, the
 *   credentials, or retry a 503 later);
 * - {@link AgentPlatformConnectionError}: no answer at all — the network failed, or the request
 *   timed out ({@link AgentPlatformTimeoutError});
 * - {@link AgentPlatformWaitError}: a `waitUntilReady` / `waitForRun` gave up or the work failed.
 *
 * The guards check a brand rather than `instanceof` alone, so they also recognise errors from a
 * second copy of this package (ESM and CJS loaded side by side).
 * @module
 */
import type { ErrorCode, StartTask, Run, ValidationIssue } from '@agent-platform/core/schemas';

/**
 * The service's stable error codes by HTTP status: the inverse of core's `errorStatus` table
 * (a test keeps the two equal). The server sends only the status and `{"detail"}`, so the client
 * names the code from the status.
 */
export const ERROR_CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'BUDGET_EXCEEDED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** A service error code, or `HTTP_ERROR` for a status the service does not use (a proxy's 502, say). */
export type AgentPlatformErrorCode = ErrorCode | 'HTTP_ERROR';

const BRAND = Symbol.for('@agent-platform/client.error');
type Brand = 'http' | 'connection' | 'wait';

function branded(error: unknown, brand: Brand): boolean {
  return typeof error === 'object' && error !== null && (error as { [BRAND]?: Brand })[BRAND] === brand;
}

export interface AgentPlatformErrorInit {
  status: number;
  detail: string | ValidationIssue[];
  method: string;
  url: string;
}

/** The service answered with a non-2xx status. */
export class AgentPlatformError extends Error {
  override readonly name = 'AgentPlatformError';
  /** The HTTP status, e.g. 404. */
  readonly status: number;
  /** The stable code for the status, e.g. `NOT_FOUND`, `VALIDATION_FAILED`. */
  readonly code: AgentPlatformErrorCode;
  /** The answer's `detail` as it came: a message, or for a 422 the list of issues. */
  readonly detail: string | ValidationIssue[];
  /** The request that failed (the URL carries no credential: keys travel in headers). */
  readonly method: string;
  readonly url: string;

  constructor(init: AgentPlatformErrorInit) {
    super(`${init.method} ${pathOf(init.url)} failed with ${init.status}: ${describeDetail(init.detail)}`);
    Object.defineProperty(this, BRAND, { value: 'http' });
    this.status = init.status;
    this.code = ERROR_CODE_BY_STATUS[init.status] ?? 'HTTP_ERROR';
    this.detail = init.detail;
    this.method = init.method;
    this.url = init.url;
  }

  /** The validation issues of a 422 (`loc`, `msg`, `type` each); empty for any other error. */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

export type ConnectionFailure = 'network' | 'timeout';

/** No answer came: the connection failed or the request timed out. Safe to retry an idempotent call. */
export class AgentPlatformConnectionError extends Error {
  override readonly name: string = 'AgentPlatformConnectionError';
  readonly reason: ConnectionFailure;
  readonly method: string;
  readonly url: string;

  constructor(reason: ConnectionFailure, method: string, url: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    Object.defineProperty(this, BRAND, { value: 'connection' });
    this.reason = reason;
    this.method = method;
    this.url = url;
  }
}

/** The request got no answer within its timeout (per attempt; see the client's `timeout`). */
export class AgentPlatformTimeoutError extends AgentPlatformConnectionError {
  override readonly name = 'AgentPlatformTimeoutError';
  readonly timeoutMs: number;

  constructor(method: string, url: string, timeoutMs: number, cause?: unknown) {
    super('timeout', method, url, `${method} ${pathOf(url)} got no answer within ${timeoutMs} ms`, cause);
    this.timeoutMs = timeoutMs;
  }
}

/** What a wait was following when it ended. */
export type WaitSubject = { kind: 'start-task'; last: StartTask | null } | { kind: 'run'; last: Run | null };

/** A wait gave up (`timeout`), or the work it followed ended in failure (`failed`: a start task in ERROR). */
export class AgentPlatformWaitError extends Error {
  override readonly name = 'AgentPlatformWaitError';
  readonly reason: 'timeout' | 'failed';
  /** The last state seen: the start task or the run. */
  readonly subject: WaitSubject;

  constructor(reason: 'timeout' | 'failed', subject: WaitSubject, message: string) {
    super(message);
    Object.defineProperty(this, BRAND, { value: 'wait' });
    this.reason = reason;
    this.subject = subject;
  }
}

/** True for an error answer from the service (any non-2xx status). */
export const isAgentPlatformError = (error: unknown): error is AgentPlatformError => branded(error, 'http');

/** True when no answer came (network failure or timeout); `error.reason` tells which. */
export const isAgentPlatformConnectionError = (error: unknown): error is AgentPlatformConnectionError => branded(error, 'connection');

/** True when a wait timed out or the awaited work failed. */
export const isAgentPlatformWaitError = (error: unknown): error is AgentPlatformWaitError => branded(error, 'wait');

function describeDetail(detail: string | ValidationIssue[]): string {
  if (typeof detail === 'string') return detail;
  return detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}
