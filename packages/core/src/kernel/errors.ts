/**
 * One error type for the whole platform. Each failure has a stable `code`; the HTTP layer
 * maps codes to status codes through {@link errorStatus}, in one table.
 * @module
 */

/** A validation problem in the FastAPI shape used on the wire (an item of a 422's `detail`). */
export interface ValidationIssue {
  /** Where the problem is: `["body", "mcp_config", "stdio_servers", 0, "command"]`. */
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Stable error codes and the HTTP status each maps to. */
export const errorStatus = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  /** A spend budget's cap is reached: the work would spend past it (the `detail` names the cap and the figures). */
  BUDGET_EXCEEDED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface PlatformErrorOptions {
  cause?: unknown;
  /** Validation issues, for `VALIDATION_FAILED`. */
  issues?: ValidationIssue[];
  /** When trying again may succeed, in seconds (sent as `Retry-After`): a budget's next period. */
  retryAfterSeconds?: number;
}

export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  readonly code: ErrorCode;
  readonly issues: ValidationIssue[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: PlatformErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const isPlatformError = (error: unknown): error is PlatformError => error instanceof PlatformError;

/** A 422 with one issue at `loc`. */
export function validationError(loc: (string | number)[], msg: string, type = 'value_error'): PlatformError {
  return new PlatformError('VALIDATION_FAILED', msg, { issues: [{ loc, msg, type }] });
}

export const notFound = (what: string): PlatformError => new PlatformError('NOT_FOUND', `${what} not found`);

export const payloadTooLarge = (limit: number): PlatformError =>
  new PlatformError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${limit} bytes`);
