/**
 * The same API on Express: `pnpm --dir examples/express-server start`, with the reference
 * server's environment variables and defaults: it listens on `PORT` (3000) and keeps its data in
 * the same `./.agent-platform` (relative to where the command was typed), so it is the Fastify
 * server's alternative; to run both at once, give this one its own `PORT` and
 * `AGENT_PLATFORM_DATA_DIR`.
 */
import { readHttpLimits } from '@agent-platform/example-server/app';
import { startTelemetry } from '@agent-platform/example-server/telemetry';
import { loadConfig } from '@agent-platform/example-server/config';
import { withConcretePort } from '@agent-platform/example-server/free-port';
import { exitOnStartupError, onShutdown } from '@agent-platform/example-server/lifecycle';
import { createLogger } from '@agent-platform/example-server/logger';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import { attachEventSockets, createExpressRouter, expressErrorHandler, expressNotFoundHandler, hardenNodeServer } from '@agent-platform/http/express';
import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const logger = createLogger(process.env.LOG_LEVEL || 'info');

try {
  const config = await withConcretePort(loadConfig(), Boolean(process.env.AGENT_PLATFORM_PUBLIC_URL));
  logger.level = config.logLevel;
  const limits = readHttpLimits();
  // The server's tracing and metrics (OTEL_EXPORTER_OTLP_ENDPOINT, AGENT_PLATFORM_METRICS…), started before the platform.
  const telemetry = await startTelemetry(config, logger);
  const { platform, close } = await createServerPlatform(config, logger, telemetry.options);
  const app = express();
  app.disable('x-powered-by');
  // Prometheus' text format, without credentials: keep /metrics off the public internet.
  if (telemetry.metricsOnApiPort && telemetry.metricsHandler) app.get('/metrics', telemetry.metricsHandler);
  // As the Fastify server: the root is the web console.
  // An empty body, as the Fastify server answers (Express's `redirect` would add a text one).
  app.get('/', (_request, response) => response.status(302).location('/console').end());
  const api = createExpressRouter({ platform, logger, bodyTimeoutMs: limits.requestTimeoutMs });
  app.use(api);
  // Every answer in the API's shape: unknown paths, errors, and Node's own refusals (hardenNodeServer).
  app.use(expressNotFoundHandler());
  app.use(expressErrorHandler({ logger }));
  await platform.start();
  const server = hardenNodeServer(createServer(app), limits);
  // The WebSocket of live conversation events, /sockets/events/{id}.
  const sockets = attachEventSockets(server, { platform, logger });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ publicUrl: config.publicUrl }, `Server listening at http://${config.host}:${port}; the console is at ${config.publicUrl}/console`);
  onShutdown(
    logger,
    async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Event streams and sockets stay open until their clients leave: end them.
      await Promise.all([api.closeStreams(), sockets.close()]);
      await closed;
      await close();
      await telemetry.shutdown();
    },
    // SIGTERM: readiness answers 503 and running runs get the grace, while HTTP still serves.
    { drain: () => platform.drain({ graceMs: config.shutdownGraceMs }) },
  );
} catch (error) {
  exitOnStartupError(logger, error);
}
