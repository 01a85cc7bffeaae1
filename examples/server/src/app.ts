import type { AgentPlatform } from '@agent-platform/core';
import { agentPlatformPlugin, fastifyServerOptions, installFastifyErrorHandlers } from '@agent-platform/http/fastify';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { readHttpLimits, type HttpLimits } from './http-limits.js';

export { DEFAULT_HTTP_LIMITS, readHttpLimits, type HttpLimits } from './http-limits.js';

export interface FastifyAppOptions {
  /** Time to receive a request's headers, and the whole request (also the body deadline). Default: from the environment. */
  limits?: HttpLimits;
}

/**
 * The Fastify app serving the platform. Exported for tests and for hosts that extend it. Every
 * answer, including the router's and Node's own refusals, is `{"detail": ...}`; a request that
 * does not arrive within the limits is answered 408 and its connection closed.
 */
export async function createFastifyApp(platform: AgentPlatform, logger: Logger, options: FastifyAppOptions = {}) {
  const limits = options.limits ?? readHttpLimits();
  const app = Fastify({ ...fastifyServerOptions(limits), loggerInstance: logger });
  // Also serves the WebSocket of live conversation events (/sockets/events/{id}); app.close()
  // ends open event streams and sockets.
  await app.register(agentPlatformPlugin, { platform, logger, bodyTimeoutMs: limits.requestTimeoutMs });
  installFastifyErrorHandlers(app, { logger });
  app.get('/', (_request, reply) => reply.redirect('/console'));
  return app;
}
