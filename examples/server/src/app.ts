import type { AgentPlatform } from '@agent-platform/core';
import { agentPlatformPlugin } from '@agent-platform/http/fastify';
import Fastify from 'fastify';
import type { Logger } from 'pino';

/** The Fastify app serving the platform. Exported for tests and for hosts that extend it. */
export async function createFastifyApp(platform: AgentPlatform, logger: Logger) {
  const app = Fastify({ loggerInstance: logger, return503OnClosing: true });
  await app.register(agentPlatformPlugin, { platform, logger });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
  return app;
}
