/**
 * Hardening a `node:http` server for the API: bounded time to receive a request, and every
 * refusal by Node's own HTTP parser (a NUL in a header, headers too large, a malformed request
 * line, a request that timed out) answered as `{"detail": ...}` like the API's own errors.
 * @module
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { statusDetail } from '../exchange/error-response.js';

export interface ServerLimits {
  /**
   * How long a client may take to send the request line and headers, in milliseconds; then 408
   * and the connection is closed. Default 15 s. `0` disables it.
   */
  headersTimeoutMs?: number;
  /**
   * How long a client may take to send the whole request, headers and body, in milliseconds;
   * then 408 (when nothing was answered yet) and the connection is closed. Default 30 s. `0`
   * disables it. At least `headersTimeoutMs`.
   */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open, in milliseconds. Default: the server's own. */
  keepAliveTimeoutMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 15_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface ResolvedServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number | undefined;
  /** How often Node checks the two timeouts: a tenth of the shorter one, between 50 ms and 1 s. */
  checkIntervalMs: number;
}

export function resolveServerLimits(limits: ServerLimits = {}): ResolvedServerLimits {
  const requestTimeoutMs = nonNegative(limits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeoutMs');
  let headersTimeoutMs = nonNegative(limits.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeoutMs');
  // Node refuses headersTimeout > requestTimeout: the whole request bounds its headers too.
  if (requestTimeoutMs > 0 && (headersTimeoutMs === 0 || headersTimeoutMs > requestTimeoutMs)) headersTimeoutMs = requestTimeoutMs;
  const shortest = Math.min(...[headersTimeoutMs, requestTimeoutMs].filter((ms) => ms > 0), 10_000);
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: limits.keepAliveTimeoutMs === undefined ? undefined : nonNegative(limits.keepAliveTimeoutMs, 'keepAliveTimeoutMs'),
    checkIntervalMs: Math.min(1_000, Math.max(50, Math.floor(shortest / 10))),
  };
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of milliseconds, 0 or more`);
  return Math.floor(value);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};

/** The status and detail for an error of Node's HTTP parser (`clientError`). */
export function clientErrorAnswer(code: string | undefined): { status: number; detail: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: statusDetail(408) };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: statusDetail(431) };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, detail: 'Chunk extensions are larger than the limit' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_HEADER_VALUE':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return { status: 400, detail: 'Malformed HTTP request: invalid header' };
    case 'HPE_INVALID_URL':
      return { status: 400, detail: 'Malformed HTTP request: invalid request target' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, detail: 'Malformed HTTP request: invalid method' };
    default:
      return { status: 400, detail: 'Malformed HTTP request' };
  }
}

/**
 * How long a refused connection stays open after its answer, reading and dropping what the
 * client still sends, so the answer is not lost to a reset (closing a socket with unread data
 * sends RST, and the client may then never read the answer).
 */
const LINGER_MS = 2_000;

/** Connections already answered: the parser reports an error again for every further chunk. */
const answered = new WeakSet<Duplex>();

/**
 * A `clientError` listener (Node's `server.on('clientError', ...)`, Fastify's
 * `clientErrorHandler`): answers `{"detail": ...}` with the fitting status (400, 408, 413, 431)
 * when nothing was answered on the connection yet, then closes it. Never echoes the request.
 */
export function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (answered.has(socket)) return;
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const { status, detail } = clientErrorAnswer(error.code);
  const body = JSON.stringify({ detail });
  const head = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
  ].join('\r\n');
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  if (inFlight) {
    // A request is being read (a body past its time): the application still holds it, so the
    // connection is closed as soon as the answer is out.
    socket.write(`${head}\r\n\r\n${body}`, () => socket.destroy());
    return;
  }
  // Refused before a request existed (a bad header, headers too large or too slow): half-close
  // after the answer, and let the client read it before the connection goes.
  socket.end(`${head}\r\n\r\n${body}`);
}

const ignore = () => {};

/**
 * A `connect` listener for a server that is no proxy: answers a `CONNECT` request 405
 * `{"detail": "Method not allowed"}` instead of dropping the connection (what Node does when
 * nobody listens).
 */
export function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  socket.on('error', ignore);
  const body = JSON.stringify({ detail: 'Method not allowed' });
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.end(
    [
      'HTTP/1.1 405 Method Not Allowed',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** Answers `CONNECT` (405) on a server where nothing else does. */
export function refuseConnectRequests(server: Server): void {
  if (server.listenerCount('connect') === 0) server.on('connect', refuseConnect);
}

const HARDENED = Symbol.for('agent-platform.http.hardened');

/**
 * Bounds the time a `node:http` (or `https`) server gives a client to send a request (headers,
 * then the whole request: 408 past either), and answers every refusal of Node's HTTP parser as
 * `{"detail": ...}` (400, 408, 413, 431; `CONNECT`, when nothing else takes it, 405). Call it before `listen()` (or right after, in the
 * same tick: `app.listen()` of Express), so the timeout checks run at the right pace.
 * @example
 * ```ts
 * const server = http.createServer(app);
 * hardenNodeServer(server, { requestTimeoutMs: 30_000 });
 * server.listen(3000);
 * ```
 */
export function hardenNodeServer<S extends Server>(server: S, limits: ServerLimits = {}): S {
  const resolved = resolveServerLimits(limits);
  server.requestTimeout = resolved.requestTimeoutMs;
  server.headersTimeout = resolved.headersTimeoutMs;
  if (resolved.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = resolved.keepAliveTimeoutMs;
  // Read by Node when the server starts listening.
  (server as S & { connectionsCheckingInterval: number }).connectionsCheckingInterval = resolved.checkIntervalMs;
  const marked = server as S & { [HARDENED]?: boolean };
  if (!marked[HARDENED]) {
    marked[HARDENED] = true;
    server.on('clientError', handleClientError);
    refuseConnectRequests(server);
  }
  return server;
}
