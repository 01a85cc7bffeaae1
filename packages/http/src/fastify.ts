/**
 * `@agent-platform/http/fastify`: the API as a Fastify plugin. The plugin stays encapsulated:
 * its raw-body content-type parser applies to its own routes only, not to the host's.
 * Server-wide settings a plugin cannot make (timeouts, the router's and Node's own refusals)
 * come from {@link fastifyServerOptions} and {@link installFastifyErrorHandlers}.
 * @module
 */
import type { Server, ServerOptions } from 'node:http';
import { PlatformError, type AgentPlatform } from '@agent-platform/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { errorResponse, HttpError, jsonResponse, statusDetail, type HandlerLogger } from './exchange/error-response.js';
import { createHttpHandler, DEFAULT_BODY_TIMEOUT_MS, type HttpHandlerOptions } from './handler.js';
import { readNodeBody } from './node-http/node-body.js';
import { nodeRequestHeaders } from './node-http/node-request.js';
import { sendNodeResponse, wireBody } from './node-http/node-response.js';
import { attachEventSockets } from './streaming/event-sockets.js';
import { handleClientError, refuseConnectRequests, resolveServerLimits, type ServerLimits } from './node-http/node-server.js';
import type { HttpResponse } from './exchange/types.js';

export { handleClientError, type ServerLimits } from './node-http/node-server.js';

export interface FastifyPluginOptions extends HttpHandlerOptions {
  platform: AgentPlatform;
  /**
   * Whether the plugin serves the WebSocket of live events (`/sockets/events/{id}` under its
   * prefix) on the instance's server. Default true; `false` leaves the server's `upgrade`
   * event alone (a host with its own WebSocket setup can call `attachEventSockets` itself).
   */
  sockets?: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * @example
 * ```ts
 * const app = Fastify({ ...fastifyServerOptions(), logger: true });
 * await app.register(agentPlatformPlugin, { platform });
 * installFastifyErrorHandlers(app);
 * await app.listen({ port: 3000 });
 * ```
 */
export async function agentPlatformPlugin(fastify: FastifyInstance, options: FastifyPluginOptions): Promise<void> {
  const { platform, sockets: serveSockets = true, ...handlerOptions } = options;
  const handler = createHttpHandler(platform, handlerOptions);
  const sockets = serveSockets
    ? attachEventSockets(fastify.server, {
        platform,
        prefix: fastify.prefix,
        ...(handlerOptions.heartbeatMs !== undefined ? { heartbeatMs: handlerOptions.heartbeatMs } : {}),
        ...(handlerOptions.logger ? { logger: handlerOptions.logger } : {}),
      })
    : undefined;
  // Open streams and sockets would hold `close()` until their clients leave.
  fastify.addHook('preClose', async () => {
    await Promise.all([handler.closeStreams(), sockets?.close()]);
  });
  const bodyTimeoutMs = handlerOptions.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;

  // Keep every body as raw bytes: signatures are verified over them, and JSON is parsed (with
  // the platform's own errors) by the handler. The body is read here, not by Fastify, so it has
  // a deadline (408) as well as a size limit (413).
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { bodyLimit: handler.maxRequestBytes }, (_request, payload, done) => {
    readNodeBody(payload, handler.maxRequestBytes, { timeoutMs: bodyTimeoutMs }).then(
      (body) => done(null, Buffer.isBuffer(body) ? body : Buffer.from(body)),
      (error: Error) => done(error),
    );
  });

  // Fastify's own failures (body too large, unreadable body) get the platform's error shape.
  fastify.setErrorHandler((error: FastifyError, _request, reply) => send(reply, fastifyErrorAnswer(error, handlerOptions.logger)));

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : null;
    const url = request.url.slice(prefixLength(fastify.prefix, request.url));
    const result =
      (await handler.handle({ method: request.method, url, headers: nodeRequestHeaders(request.raw), body })) ?? jsonResponse(404, { detail: 'Not Found' });
    if (result.stream) {
      // Written by hand, chunk by chunk; the headers Fastify holds (a CORS plugin's) go along.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      await sendNodeResponse(reply.raw, result, handlerOptions.logger);
      return reply;
    }
    return send(reply, result);
  };

  // Register each path the handler serves, for every method, so the handler answers 405 itself.
  const paths = new Set([...handler.routes.map((route) => route.path.replace(/\{([^}]+)\}/g, ':$1')), ...handler.assetPaths]);
  for (const path of paths) fastify.route({ method: [...METHODS], url: path, handler: serve });
}

const prefixLength = (prefix: string, url: string): number => (prefix && url.startsWith(prefix) ? prefix.length : 0);

function send(reply: FastifyReply, result: HttpResponse): FastifyReply {
  reply.code(result.status).headers(result.headers);
  // Bytes (a zip) as a Buffer, text (JSON, text/plain) as a string: Fastify sends both unchanged
  // with the content type set above.
  return reply.send(result.body === null ? undefined : wireBody(result.body));
}

/**
 * Any error Fastify hands an error handler, as `{"detail": ...}`: the platform's own errors as
 * usual; Fastify's 4xx with a fixed text for their status (their messages can quote the
 * request); anything else a logged 500.
 */
function fastifyErrorAnswer(error: FastifyError | Error, logger?: HandlerLogger): HttpResponse {
  if (error instanceof PlatformError || error instanceof HttpError) return errorResponse(error, logger);
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return jsonResponse(status, { detail: statusDetail(status) }, status === 408 ? { connection: 'close' } : {});
  return errorResponse(error, logger);
}

/** The largest path parameter Fastify's router passes on: past any URL Node accepts, so the handler decides (404). */
const MAX_PARAM_LENGTH = 64 * 1024;

/** {@link fastifyServerOptions}' options: timeouts, and how long a path parameter may be. */
export interface FastifyServerLimits extends ServerLimits {
  /** Longest path parameter the router passes to a route (Fastify's `maxParamLength`). Default 65,536: the API refuses long ids itself, with a 404. */
  maxParamLength?: number;
}

/**
 * Options to spread into `Fastify({...})` for a server that serves the API: a request must
 * arrive within `requestTimeoutMs` (headers within `headersTimeoutMs`), else 408; the router's
 * refusals (a malformed percent-encoding, an over-long parameter: 404) and Node's parser's
 * (a NUL in a header: 400, headers too large: 431, a timeout: 408) are answered as
 * `{"detail": ...}` without quoting the request; requests arriving while the server closes are
 * served (`return503OnClosing: false`) rather than answered in Fastify's own error shape.
 *
 * With `https` or a `serverFactory` (where the `http` options below do not apply), also call
 * `hardenNodeServer(app.server, limits)` from `@agent-platform/http/node` before `listen()`.
 * Options set after the spread win; a `routerOptions` of your own replaces `maxParamLength`.
 * @example
 * ```ts
 * const app = Fastify({ ...fastifyServerOptions({ requestTimeoutMs: 30_000 }), loggerInstance: logger });
 * ```
 */
export type FastifyHardenedOptions = Required<
  Pick<FastifyServerOptions, 'requestTimeout' | 'routerOptions' | 'return503OnClosing' | 'clientErrorHandler' | 'frameworkErrors'>
> &
  Pick<FastifyServerOptions, 'keepAliveTimeout'> & { http: ServerOptions };

export function fastifyServerOptions(limits: FastifyServerLimits = {}): FastifyHardenedOptions {
  const resolved = resolveServerLimits(limits);
  return {
    requestTimeout: resolved.requestTimeoutMs,
    ...(resolved.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: resolved.keepAliveTimeoutMs }),
    http: {
      headersTimeout: resolved.headersTimeoutMs,
      requestTimeout: resolved.requestTimeoutMs,
      connectionsCheckingInterval: resolved.checkIntervalMs,
    },
    routerOptions: { maxParamLength: limits.maxParamLength ?? MAX_PARAM_LENGTH },
    return503OnClosing: false,
    clientErrorHandler: handleClientError,
    frameworkErrors: (error, _request, reply) => {
      // FST_ERR_BAD_URL (a malformed percent-encoding), FST_ERR_MAX_PARAM_LENGTH: no such resource.
      const status =
        error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 404
          : error.statusCode && error.statusCode < 500
            ? error.statusCode
            : 500;
      void send(reply, jsonResponse(status, { detail: statusDetail(status) }));
    },
  };
}

/**
 * Sets the root not-found handler (404 `{"detail": "Not Found"}`, without quoting the path as
 * Fastify's default does), answers `CONNECT` with 405 when nothing else does, and sets the root
 * error handler (errors of the host's own routes and of
 * unknown paths, e.g. a malformed body sent to one, as `{"detail": ...}`; unexpected ones a
 * logged 500). Call it on the root instance (any logger, server or type provider); the
 * plugin's routes have their own.
 */
// biome-ignore lint/suspicious/noExplicitAny: any root instance, whatever its server, logger and type provider; FastifyInstance is invariant in them, so only any accepts them all
export function installFastifyErrorHandlers<App extends FastifyInstance<any, any, any, any, any>>(app: App, options: { logger?: HandlerLogger } = {}): App {
  app.setNotFoundHandler((_request: FastifyRequest, reply: FastifyReply) => send(reply, jsonResponse(404, { detail: 'Not Found' })));
  // CONNECT never reaches Fastify's router: Node drops the connection unless someone answers.
  if (typeof (app.server as Server | undefined)?.headersTimeout === 'number') refuseConnectRequests(app.server as Server);
  // An unknown path stays a 404 whatever its body: the body is not read for it (Express does not either).
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    send(reply, request.is404 ? jsonResponse(404, { detail: 'Not Found' }) : fastifyErrorAnswer(error, options.logger)),
  );
  return app;
}
