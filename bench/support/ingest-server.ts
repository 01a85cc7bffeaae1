/**
 * Servers for the ingest benchmark, each run as a child process (argv[2] picks one) that reports
 * its port over IPC:
 * - `platform`: the reference Fastify app (memory storage) with the GitHub secret, 1,000 orgs
 *   each linked to account `owner-<i>`, and 10 automations per org of which 1% in all match;
 * - `bare`: a Fastify route that only parses the same JSON body;
 * - `octokit`: `@octokit/webhooks`' Node middleware (verifies and dispatches; stores nothing).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import { createFastifyApp } from '@agent-platform/example-server/app';
import { loadConfig } from '@agent-platform/example-server/config';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import Fastify from 'fastify';
import { pino } from 'pino';
import { GITHUB_SECRET, seedGithubOrgs } from './github-ingest-setup.js';

export const INGEST_PATH = '/api/automation/v1/events/github';

async function platformServer() {
  const logger = pino({ level: 'warn' });
  const config = loadConfig({
    AGENT_PLATFORM_STORAGE: 'memory',
    AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
    AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
  });
  const { platform } = await createServerPlatform(config, logger);
  await seedGithubOrgs(platform);
  return createFastifyApp(platform, logger);
}

async function bareServer() {
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
  app.post(INGEST_PATH, async (request) => ({ received: request.body !== undefined }));
  return app;
}

async function start(): Promise<number> {
  const mode = process.argv[2];
  if (mode === 'octokit') {
    const webhooks = new Webhooks({ secret: GITHUB_SECRET });
    webhooks.on('pull_request', () => {});
    const server = createServer(createNodeMiddleware(webhooks, { path: INGEST_PATH }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }
  const app = mode === 'platform' ? await platformServer() : await bareServer();
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

const port = await start();
process.send?.({ port });
// Exit normally on SIGINT so a --cpu-prof profile is written.
process.once('SIGINT', () => process.exit(0));
