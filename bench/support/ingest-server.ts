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
import { makeAutomationRecord } from '@agent-platform/testing/fixtures';
import { createFastifyApp } from '@agent-platform/example-server/app';
import { loadConfig } from '@agent-platform/example-server/config';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import Fastify from 'fastify';
import { pino } from 'pino';

export const GITHUB_SECRET = 'bench-github-secret-0123';
export const ORGS = 1000;
export const AUTOMATIONS_PER_ORG = 10;
export const INGEST_PATH = '/api/automation/v1/events/github';

async function platformServer() {
  const logger = pino({ level: 'warn' });
  const config = loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'), AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET });
  const { platform } = await createServerPlatform(config, logger);
  for (let org = 0; org < ORGS; org++) {
    const orgId = `org-${org}`;
    await platform.githubLinks.link({ orgId, account: `owner-${org}` });
    for (let j = 0; j < AUTOMATIONS_PER_ORG; j++) {
      // One automation in every tenth org matches `pull_request.opened`: 100 of 10,000 (1%).
      const matches = j === 0 && org % 10 === 0;
      const record = makeAutomationRecord({
        id: `auto_${org}_${j}`,
        org_id: orgId,
        enabled: true,
        trigger: matches
          ? { type: 'event', source: 'github', on: 'pull_request.opened', filter: "pull_request.state == 'open'" }
          : { type: 'event', source: 'github', on: j % 2 ? 'issues.opened' : 'pull_request.labeled', filter: "contains(pull_request.labels[].name, 'bug')" },
      });
      await platform.storage.automations.insert(record);
    }
  }
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
