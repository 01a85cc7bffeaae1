/**
 * Servers for the ingest benchmark, each run as a child process (argv[2] picks one) that reports
 * its port over IPC:
 * - `platform`: the reference Fastify app (memory storage) with the GitHub secret, 1,000 orgs
 *   each linked to account `owner-<i>`, and 10 automations per org of which 1% in all match;
 * - `platform+metrics`, `platform+traces`: `platform` with the reference server's Prometheus
 *   metrics, and with those and its spans exported over OTLP (to a sink in the same process);
 * - `bare`: a Fastify route that only parses the same JSON body;
 * - `octokit`: `@octokit/webhooks`' Node middleware (verifies and dispatches; stores nothing);
 * - `platform-memory`, `platform-pglite`, `platform-postgres`: the reference server as `main.ts`
 *   runs it with `AGENT_PLATFORM_EXECUTOR=off` (API only, no run executor) on that storage
 *   (`AGENT_PLATFORM_DATA_DIR` for PGlite and `DATABASE_URL` for PostgreSQL, from this process's
 *   environment), seeded like `platform` with argv[3] orgs (default 1,000; 0: already seeded);
 * - `receiver-postgres`: the minimal durable receiver (`durable-receiver.ts`) on `DATABASE_URL`.
 *
 * On SIGINT the last two kinds close (in-flight requests finish, storage closes) before exiting.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import { createFastifyApp } from '@agent-platform/example-server/app';
import { loadConfig } from '@agent-platform/example-server/config';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import { startTelemetry } from '@agent-platform/example-server/telemetry';
import Fastify from 'fastify';
import { pino } from 'pino';
import { durableReceiver } from './durable-receiver.js';
import { GITHUB_SECRET, ORGS, seedGithubOrgs } from './github-ingest-setup.js';

export const INGEST_PATH = '/api/automation/v1/events/github';

/**
 * The reference app on memory storage; with `telemetry`, as `main.ts` starts it: `metrics` (the
 * Prometheus meter provider) or `traces` (that, and every span exported over OTLP/HTTP to a sink
 * in this process that answers 200 and keeps nothing).
 */
async function platformServer(telemetry: 'none' | 'metrics' | 'traces' = 'none') {
  const logger = pino({ level: 'warn' });
  if (telemetry === 'traces') process.env.OTEL_EXPORTER_OTLP_ENDPOINT = await otlpSink();
  const config = loadConfig({
    AGENT_PLATFORM_STORAGE: 'memory',
    AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
    AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
    AGENT_PLATFORM_METRICS: telemetry === 'none' ? 'off' : 'on',
    ...(telemetry === 'traces' ? { OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
  });
  const started = await startTelemetry(config, logger);
  const { platform } = await createServerPlatform(config, logger, started.options);
  await seedGithubOrgs(platform);
  return createFastifyApp(platform, logger, { metrics: started.metricsHandler });
}

/** An OTLP/HTTP endpoint on loopback that accepts every export and drops it; its URL. */
async function otlpSink(): Promise<string> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
}

/** The reference server on `storage` as an API-only process; `close` stops the app, then the engine and its storage. */
async function configuredPlatformServer(storage: 'memory' | 'pglite' | 'postgres', orgs: number) {
  const logger = pino({ level: 'warn' });
  const config = loadConfig({
    AGENT_PLATFORM_STORAGE: storage,
    DATABASE_URL: storage === 'postgres' ? process.env.DATABASE_URL : undefined,
    AGENT_PLATFORM_DATA_DIR: storage === 'pglite' ? process.env.AGENT_PLATFORM_DATA_DIR : undefined,
    AGENT_PLATFORM_EXECUTOR: 'off',
    AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
    AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
  });
  const server = await createServerPlatform(config, logger);
  if (orgs > 0) await seedGithubOrgs(server.platform, orgs);
  const app = await createFastifyApp(server.platform, logger);
  // As main.ts: API-only processes still hear the changes other processes make.
  await server.platform.start({ executeRuns: config.executor });
  app.addHook('onClose', async () => server.close());
  return app;
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
  const orgs = process.argv[3] === undefined ? ORGS : Number(process.argv[3]);
  const closing =
    mode === 'platform-memory' || mode === 'platform-pglite' || mode === 'platform-postgres'
      ? await configuredPlatformServer(mode.slice('platform-'.length) as 'memory' | 'pglite' | 'postgres', orgs)
      : mode === 'receiver-postgres'
        ? await durableReceiver(process.env.DATABASE_URL!, INGEST_PATH, GITHUB_SECRET)
        : null;
  if (closing) closeOnExit = () => closing.close();
  const telemetry = mode === 'platform+metrics' ? 'metrics' : mode === 'platform+traces' ? 'traces' : 'none';
  const app = closing ?? (mode?.startsWith('platform') ? await platformServer(telemetry) : await bareServer());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

let closeOnExit: (() => Promise<unknown>) | null = null;
const port = await start();
process.send?.({ port });
// Exit normally on SIGINT so a --cpu-prof profile is written; stores are closed first (at most 30 s).
process.once('SIGINT', () => {
  if (!closeOnExit) process.exit(0);
  setTimeout(() => process.exit(1), 30_000).unref();
  closeOnExit().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
});
