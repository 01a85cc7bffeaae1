import type { AgentPlatform } from '@agent-platform/core';
import type { MetricsHandler } from '@agent-platform/http/metrics';
import type { OidcSignInOptions } from '@agent-platform/http';
import { agentPlatformPlugin, fastifyServerOptions, installFastifyErrorHandlers } from '@agent-platform/http/fastify';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { readHttpLimits, type HttpLimits } from './http-limits.js';
import { OneLinePerRequest } from './request-log.js';

export { DEFAULT_HTTP_LIMITS, readHttpLimits, type HttpLimits } from './http-limits.js';
// For the Express example, which reuses the server's setup (the package exports ./app).

export interface FastifyAppOptions {
  /** Time to receive a request's headers, and the whole request (also the body deadline). Default: from the environment. */
  limits?: HttpLimits;
  /**
   * Serves `GET /metrics` (Prometheus' text format) with this handler, without credentials:
   * keep the path off the public internet (a private network, or a proxy that refuses it).
   * Default: no `/metrics`.
   */
  metrics?: MetricsHandler | null;
  /** Console sign-in with OpenID Connect (`publicUrl` included); default none: API keys only. */
  oidc?: OidcSignInOptions | null;
}

/**
 * The Fastify app serving the platform. Exported for tests and for hosts that extend it. Every
 * answer, including the router's and Node's own refusals, is `{"detail": ...}`; a request that
 * does not arrive within the limits is answered 408 and its connection closed.
 */
export async function createFastifyApp(platform: AgentPlatform, logger: Logger, options: FastifyAppOptions = {}) {
  const limits = options.limits ?? readHttpLimits();
  const app = Fastify({ ...fastifyServerOptions(limits), loggerInstance: logger, logController: new OneLinePerRequest() });
  // Also serves the WebSocket of live conversation events (/sockets/events/{id}); app.close()
  // ends open event streams and sockets.
  await app.register(agentPlatformPlugin, { platform, logger, bodyTimeoutMs: limits.requestTimeoutMs, ...(options.oidc ? { oidc: options.oidc } : {}) });
  installFastifyErrorHandlers(app, { logger });
  app.get('/', (_request, reply) => reply.redirect('/console'));
  const metrics = options.metrics;
  if (metrics) {
    // The handler writes the raw response itself; a scrape is not worth a log line.
    app.get('/metrics', { logLevel: 'warn' }, (request, reply) => {
      reply.hijack();
      void metrics(request.raw, reply.raw);
    });
  }
  return app;
}
