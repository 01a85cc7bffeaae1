/**
 * The WebSocket of live conversation events, `/sockets/events/{id}`, as the OpenHands agent
 * server serves it: each message one event in the agent-server shape (`{id, timestamp, source,
 * kind, ...data}`), JSON; `resend_all=true` sends the stored events first, otherwise only the
 * ones stored from the connection on. Credentials as everywhere (`X-Session-API-Key`,
 * `Authorization: Bearer`), or `?session_api_key=` since browsers cannot set headers on a
 * socket. Refusals happen before the handshake, as plain HTTP answers in the API's shape: 401
 * without a valid key, 404 for a conversation that is not the caller's.
 * @module
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PlatformError, toAgentServerEvent, type AgentPlatform, type ConversationEvent, type Principal } from '@agent-platform/core';
import { WebSocket, WebSocketServer } from 'ws';
import { conversationEvents, nextEventSeq, serializeEvent } from './conversation-events.js';
import { errorResponse, jsonResponse, type HandlerLogger } from '../exchange/error-response.js';
import { missingKeyMessage, readApiKey } from '../exchange/api-key-header.js';
import type { LiveQueue } from './live-queue.js';
import { nodeRequestHeaders } from '../node-http/node-request.js';
import { checkQuery, isPlausibleParam, splitTarget } from '../exchange/request-checks.js';
import { DEFAULT_SSE_HEARTBEAT_MS } from './sse.js';
import type { HttpResponse } from '../exchange/types.js';

export interface EventSocketsOptions {
  platform: AgentPlatform;
  /** The path the API is mounted under (`/platform` serves `/platform/sockets/events/{id}`). Default none. */
  prefix?: string;
  /** How often a ping is sent; a socket that did not answer the last one is dropped. Default 15 s; `0` sends none. */
  heartbeatMs?: number;
  /** Where unexpected errors are reported. */
  logger?: HandlerLogger;
}

export interface EventSockets {
  /** Stops taking sockets and closes the open ones (1001), terminating those that do not close within a second. */
  close(): Promise<void>;
}

/** The socket path under the prefix. */
export const EVENT_SOCKET_PATH = '/sockets/events/{id}';

/** Past this many bytes waiting to be sent, sending waits for the socket to drain. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** Clients send nothing the platform reads (follow-up messages go through the API); frames are bounded. */
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;
const CLOSE_GRACE_MS = 1_000;

/** OpenHands' `resend_all` is a FastAPI bool: these spellings mean true. */
const TRUE_VALUES = new Set(['true', '1', 'yes', 'on']);

/**
 * Serves `/sockets/events/{id}` on a `node:http` server (Express, the Node listener; the
 * Fastify plugin calls it itself) through its `upgrade` event. An upgrade to any other path is
 * left to other `upgrade` listeners, or refused (404) when there are none.
 * @example
 * ```ts
 * const server = hardenNodeServer(createServer(app));
 * const sockets = attachEventSockets(server, { platform });
 * // on shutdown:
 * await sockets.close();
 * ```
 */
export function attachEventSockets(server: Server, options: EventSocketsOptions): EventSockets {
  const { platform, logger } = options;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, clientTracking: false });
  const open = new Set<WebSocket>();
  let closing = false;

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = splitTarget(request.url ?? '/');
    const id = target ? socketConversationId(target.path, prefix) : undefined;
    if (!target || id === undefined) {
      // Not ours: another `upgrade` listener may take it; with none, Node would leave it hanging.
      if (server.listenerCount('upgrade') <= 1) refuseUpgrade(socket, jsonResponse(404, { detail: 'Not Found' }));
      return;
    }
    socket.on('error', ignore);
    if (closing) {
      refuseUpgrade(socket, jsonResponse(503, { detail: 'The server is shutting down' }));
      return;
    }
    void accept(request, socket, head, id, target.query).catch((error: unknown) => refuseUpgrade(socket, errorResponse(error, logger)));
  };

  async function accept(request: IncomingMessage, socket: Duplex, head: Buffer, id: string | null, query: URLSearchParams): Promise<void> {
    const principal = await authenticate(platform, request, query, id);
    checkQuery(query);
    if (id === null) throw new PlatformError('NOT_FOUND', 'Conversation not found');
    const resendAll = TRUE_VALUES.has((query.get('resend_all') ?? '').toLowerCase());
    // From the next event on, unless the stored ones are asked for; both 404 for a conversation
    // that is not the caller's. Events stored during the handshake wait in the queue.
    const fromSeq = resendAll ? 0 : await nextEventSeq(platform, principal, id);
    const events = await conversationEvents(platform, principal, id, fromSeq);
    if (socket.destroyed || closing) {
      await events.return();
      if (!socket.destroyed) refuseUpgrade(socket, jsonResponse(503, { detail: 'The server is shutting down' }));
      return;
    }
    // Whatever ends the connection (a failed handshake included) stops the watcher.
    socket.once('close', () => void events.return());
    wss.handleUpgrade(request, socket, head, (ws) => serve(ws, events, (data) => receive(ws, principal, id, data)));
  }

  /**
   * A message from the client, as the agent-server takes them: a user message (a
   * `SendMessageRequest`, `{"role": "user", "content": ...}`), which the agent takes up (`run`
   * defaults to true here). A message that is not one gets an `{"error"}` answer; the socket stays.
   */
  async function receive(ws: WebSocket, principal: Principal, id: string, data: unknown): Promise<void> {
    try {
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data as Buffer[]).toString('utf8') : String(data);
      const message = JSON.parse(text) as Record<string, unknown>;
      await platform.conversations.sendMessage(principal, id, { run: true, ...message });
    } catch (error) {
      const detail = error instanceof PlatformError ? error.message : 'the message must be JSON: {"role": "user", "content": "..."}';
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ error: detail }));
    }
  }

  function serve(ws: WebSocket, events: LiveQueue<ConversationEvent>, onMessage: (data: unknown) => Promise<void>): void {
    open.add(ws);
    let alive = true;
    const heartbeat =
      heartbeatMs > 0
        ? setInterval(() => {
            if (!alive) {
              ws.terminate();
              return;
            }
            alive = false;
            ws.ping();
          }, heartbeatMs)
        : undefined;
    heartbeat?.unref();
    ws.on('pong', () => {
      alive = true;
    });
    ws.on('error', ignore);
    ws.on('message', (data) => void onMessage(data));
    ws.once('close', () => {
      clearInterval(heartbeat);
      open.delete(ws);
      void events.return();
    });
    void send(ws, events);
  }

  async function send(ws: WebSocket, events: LiveQueue<ConversationEvent>): Promise<void> {
    try {
      for (;;) {
        const next = await events.next();
        if (next.done || ws.readyState !== WebSocket.OPEN) break;
        const data = serializeEvent(next.value, toAgentServerEvent);
        if (ws.bufferedAmount < HIGH_WATER_BYTES) ws.send(data);
        else await new Promise<void>((resolve) => ws.send(data, () => resolve()));
      }
      // The queue ended with the socket open: the client fell too far behind.
      if (ws.readyState === WebSocket.OPEN) ws.close(1013, 'Too far behind: reconnect');
    } catch (error) {
      logger?.error({ err: error }, 'event socket failed');
      if (ws.readyState === WebSocket.OPEN) ws.close(1011, 'Internal error');
    }
  }

  server.on('upgrade', onUpgrade);

  return {
    async close() {
      closing = true;
      server.off('upgrade', onUpgrade);
      await Promise.all(
        [...open].map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === WebSocket.CLOSED) return resolve();
              const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
              ws.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              ws.close(1001, 'Server shutting down');
            }),
        ),
      );
      wss.close();
    },
  };
}

const ignore = () => {};

/**
 * The conversation id of a socket path (`null`: the path is the socket's but no id can be
 * it, a 404 after authentication), or `undefined` for any other path.
 */
function socketConversationId(path: string, prefix: string): string | null | undefined {
  const base = `${prefix}/sockets/events/`;
  if (!path.startsWith(base)) return undefined;
  const encoded = path.slice(base.length);
  if (encoded === '' || encoded.includes('/')) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return isPlausibleParam(id) ? id : null;
}

/** The caller from the usual headers or `?session_api_key=`; naming two different keys is a 400. */
async function authenticate(platform: AgentPlatform, request: IncomingMessage, query: URLSearchParams, conversationId: string | null): Promise<Principal> {
  const fromHeaders = readApiKey(nodeRequestHeaders(request));
  const fromQuery = [...new Set(query.getAll('session_api_key').filter(Boolean))];
  const keys = new Set([...(fromHeaders ? [fromHeaders] : []), ...fromQuery]);
  if (keys.size > 1) throw new PlatformError('BAD_REQUEST', 'The request names more than one API key: send one key');
  const apiKey = keys.values().next().value;
  let principal = apiKey ? await platform.authenticate({ apiKey }) : null;
  // The conversation's sandbox session key also opens its own stream (as the agent-server's).
  if (!principal && apiKey && conversationId) principal = await platform.conversations.authenticateSessionKey(apiKey, conversationId);
  if (!principal) {
    throw new PlatformError(
      'UNAUTHORIZED',
      apiKey ? 'Invalid API key' : missingKeyMessage(nodeRequestHeaders(request), 'X-Session-API-Key, Authorization: Bearer or ?session_api_key='),
    );
  }
  return principal;
}

/** Answers an upgrade request with a plain HTTP response and closes the connection. */
function refuseUpgrade(socket: Duplex, response: HttpResponse): void {
  if (socket.destroyed) return;
  socket.on('error', ignore);
  const body = typeof response.body === 'string' ? Buffer.from(response.body) : (response.body ?? new Uint8Array());
  const head = [
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`,
    ...Object.entries({ ...response.headers, 'content-length': String(body.byteLength), connection: 'close' }).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]));
}
