import type { AgentPlatform } from '@agent-platform/core';
import { agentPlatformPlugin } from '@agent-platform/http/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** The Fastify app serving the platform. Exported for tests and for hosts that extend it. */
export async function createFastifyApp(platform: AgentPlatform, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger, disableRequestLogging: false, return503OnClosing: true });
  await app.register(agentPlatformPlugin, { platform, logger });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
  return app;
}
