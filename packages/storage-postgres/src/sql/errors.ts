/**
 * How driver errors become the port's errors: a unique violation is a `StorageConflictError`; a
 * database that cannot be reached (or is shutting down, or out of connections) is a
 * `StorageUnavailableError`, answered 503 so callers retry; serialization failures and deadlocks
 * are retried by the adapter. Messages never carry the password of the connection URL.
 * @module
 */
import { StorageConflictError, StorageUnavailableError } from '@agent-platform/core';

/** SQLSTATE of a unique violation. */
export const UNIQUE_VIOLATION = '23505';

/** Serialization failure and deadlock: the transaction did nothing and may simply run again. */
const RETRYABLE_STATES = new Set(['40001', '40P01']);

/** Socket-level failures (Node's `code`): the server is not there, or went away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

/**
 * SQLSTATEs that mean "no usable connection": 57P01-57P03 (admin/crash shutdown, cannot connect
 * now), class 08 (connection exception), class 53 (too many connections, out of memory or disk),
 * 25006 (a read-only standby, e.g. mid-failover), 58xxx (I/O errors on the server), and — when the
 * database is not as configured — class 28 (authentication) and 3D000 (no such database).
 */
function isUnavailableState(code: string): boolean {
  return (
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    code === '25006' ||
    code === '3D000' ||
    code.startsWith('08') ||
    code.startsWith('28') ||
    code.startsWith('53') ||
    code.startsWith('58')
  );
}

/** What node-postgres and pg-pool say when a connection is gone or cannot be had. */
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /not queryable/i,
  /cannot use a pool after calling end/i,
  /connection (?:ended|closed|is closed)/i,
  /server closed the connection/i,
  /pglite is closed/i,
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
}

function codeOf(error: unknown): string {
  const code = (error as ErrorLike | null)?.code;
  return typeof code === 'string' ? code : '';
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** True for a serialization failure or a deadlock. */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE_STATES.has(codeOf(error));
}

export function isUniqueViolation(error: unknown): boolean {
  return codeOf(error) === UNIQUE_VIOLATION;
}

/** True when the database could not be reached or is refusing work for now. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true;
  const code = codeOf(error);
  if (NETWORK_CODES.has(code) || isUnavailableState(code)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isUnavailable(inner))) return true;
  const message = messageOf(error);
  return UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/** Removes `secrets` (a URL's password, raw and percent-decoded) from a message. */
export type Redact = (text: string) => string;

/** A redactor for the password of `connectionString`; the identity when it has none. */
export function redactorFor(connectionString: string | undefined): Redact {
  const secrets = new Set<string>();
  if (connectionString) {
    try {
      const password = new URL(connectionString).password;
      if (password) {
        secrets.add(password);
        secrets.add(decodeURIComponent(password));
      }
    } catch {
      // Not a URL (a libpq key=value string): look for password=... instead.
      const match = /password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/i.exec(connectionString);
      if (match?.[1]) secrets.add(match[1].replace(/^'|'$/g, ''));
    }
  }
  const list = [...secrets].filter((secret) => secret.length > 0);
  if (list.length === 0) return (text) => text;
  return (text) => list.reduce((out, secret) => out.split(secret).join('***'), text);
}

/** The describing part of a driver error, without its stack, safe to log. */
function describe(error: unknown, redact: Redact): string {
  const code = codeOf(error);
  let message = messageOf(error);
  if (error instanceof AggregateError && error.errors.length > 0 && !message) {
    message = error.errors.map((inner) => messageOf(inner)).join('; ');
  }
  return redact(code && !message.includes(code) ? `${message} (${code})` : message);
}

/** `error` as a `StorageUnavailableError` for the backend `what` (e.g. "PostgreSQL"). */
export function unavailable(what: string, error: unknown, redact: Redact): StorageUnavailableError {
  if (error instanceof StorageUnavailableError) return error;
  const detail = describe(error, redact);
  // The cause is a plain copy: the driver's own error may hold the connection parameters.
  const cause = Object.assign(new Error(detail), { code: codeOf(error) || undefined });
  return new StorageUnavailableError(`${what} is unavailable: ${detail}`, { cause });
}

/**
 * The error a repository call throws for a driver error: the port's errors for the cases the port
 * names, the driver's error otherwise (a bug: a syntax error, a missing migration).
 */
export function toStorageError(what: string, error: unknown, redact: Redact): unknown {
  if (error instanceof StorageConflictError || error instanceof StorageUnavailableError) return error;
  if (isUnavailable(error)) return unavailable(what, error, redact);
  if (isUniqueViolation(error)) return new StorageConflictError(conflictMessage(error));
  return error;
}

function conflictMessage(error: unknown): string {
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? `A record with the same key already exists (${constraint})` : 'A record with the same key already exists';
}

/**
 * Raised when a transaction cannot go on as it started (a serialization failure, a deadlock):
 * `transaction()` runs it again; what escapes after the last attempt is a 503.
 */
export class TransactionRetryError extends StorageUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
