/**
 * A worker-only process: `pnpm --dir examples/server worker`, with the server's environment. It
 * serves no API; it executes runs from the shared database beside the servers, so adding
 * workers adds run capacity. Useful with `DATABASE_URL` (PostgreSQL); embedded PGlite is one
 * process only. Its metrics are served only with `AGENT_PLATFORM_METRICS_PORT` set (`/metrics`
 * on that port, on `HOST`); its spans go where the server's do (`OTEL_EXPORTER_OTLP_ENDPOINT`).
 */
import { loadConfig } from './config.js';
import { exitOnStartupError, onShutdown } from './lifecycle.js';
import { createLogger } from './logger.js';
import { createServerPlatform } from './platform.js';
import { startTelemetry } from './telemetry.js';

const logger = createLogger(process.env.LOG_LEVEL || 'info');

try {
  const config = loadConfig();
  logger.level = config.logLevel;
  // No API port: metrics only where AGENT_PLATFORM_METRICS_PORT serves them.
  const telemetry = await startTelemetry({ ...config, metrics: config.metrics && config.metricsPort !== null }, logger);
  const { platform, close } = await createServerPlatform(config, logger, telemetry.options);
  await platform.start();
  // The engine's timers never hold a process open, and a worker has no server that would: while
  // its database is away (a restart), nothing else would keep it alive. It lives until a signal.
  setInterval(() => {}, 2 ** 30);
  logger.info({ workerId: platform.executor?.workerId }, 'agent-platform worker ready');
  onShutdown(
    logger,
    async () => {
      await close();
      await telemetry.shutdown();
    },
    { drain: () => platform.drain({ graceMs: config.shutdownGraceMs }) },
  );
} catch (error) {
  exitOnStartupError(logger, error);
}
