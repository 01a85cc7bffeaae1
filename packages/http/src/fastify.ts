/**
 * `@agent-platform/http/fastify`: the API as a Fastify plugin. The plugin stays encapsulated:
 * its raw-body content-type parser applies to its own routes only, not to the host's.
 * @module
 */
import type { AgentPlatform } from '@agent-platform/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponse, jsonResponse } from './error-response.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';
import type { HttpResponse } from './types.js';

export interface FastifyPluginOptions extends HttpHandlerOptions {
  platform: AgentPlatform;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * @example
 * ```ts
 * const app = Fastify({ logger: true });
 * await app.register(agentPlatformPlugin, { platform });
 * await app.listen({ port: 3000 });
 * ```
 */
export async function agentPlatformPlugin(fastify: FastifyInstance, options: FastifyPluginOptions): Promise<void> {
  const { platform, ...handlerOptions } = options;
  const handler = createHttpHandler(platform, handlerOptions);

  // Keep every body as raw bytes: signatures are verified over them, and JSON is parsed (with
  // the platform's own errors) by the handler.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: handler.maxRequestBytes }, (_request, body, done) => done(null, body));

  // Fastify's own failures (body too large, unreadable body) get the platform's error shape.
  fastify.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : undefined;
    const result = status ? jsonResponse(status, { detail: status === 413 ? 'Request body is larger than the limit' : error.message }) : errorResponse(error, handlerOptions.logger);
    return send(reply, result);
  });

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : null;
    const url = request.url.slice(prefixLength(fastify.prefix, request.url));
    const result = (await handler.handle({ method: request.method, url, headers: request.headers, body })) ?? jsonResponse(404, { detail: 'Not Found' });
    return send(reply, result);
  };

  // Register each path the handler serves, for every method, so the handler answers 405 itself.
  const paths = new Set(handler.routes.map((route) => route.path.replace(/\{([^}]+)\}/g, ':$1')));
  for (const path of paths) fastify.route({ method: [...METHODS], url: path, handler: serve });
}

const prefixLength = (prefix: string, url: string): number => (prefix && url.startsWith(prefix) ? prefix.length : 0);

function send(reply: FastifyReply, result: HttpResponse): FastifyReply {
  reply.code(result.status).headers(result.headers);
  return reply.send(result.body ?? undefined);
}
