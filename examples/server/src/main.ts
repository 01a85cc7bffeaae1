/**
 * The reference server: `pnpm start` at the repository root. Configured by environment
 * variables (see the README); runs on embedded defaults with none set.
 */
import { createFastifyApp } from './app.js';
import { loadConfig } from './config.js';
import { withConcretePort } from './free-port.js';
import { exitOnStartupError, onShutdown } from './lifecycle.js';
import { createLogger } from './logger.js';
import { createServerPlatform } from './platform.js';
import { startTelemetry } from './telemetry.js';

const logger = createLogger(process.env.LOG_LEVEL || 'info');

try {
  const config = await withConcretePort(loadConfig(), Boolean(process.env.AGENT_PLATFORM_PUBLIC_URL));
  logger.level = config.logLevel;
  // Before the platform: its meters and tracer come from the providers registered here.
  const telemetry = await startTelemetry(config, logger);
  const { platform, close } = await createServerPlatform(config, logger, telemetry.options);
  // `/metrics` without credentials (keep it off the public internet), unless it has its own port.
  const app = await createFastifyApp(platform, logger, {
    metrics: telemetry.metricsOnApiPort ? telemetry.metricsHandler : null,
    // The redirect URI names the public URL as it is once the port is known.
    oidc: config.oidc && { ...config.oidc, publicUrl: config.publicUrl },
  });
  // API-only processes leave the runs to worker processes, but still hear the changes other
  // processes make (automations, cancels), so their matching stays fresh.
  await platform.start({ executeRuns: config.executor });
  if (!config.executor) logger.info('AGENT_PLATFORM_EXECUTOR=off: this process serves the API; workers execute runs');
  await app.listen({ port: config.port, host: config.host });
  logger.info({ publicUrl: config.publicUrl }, `agent-platform reference server ready: the console is at ${config.publicUrl}/console`);
  onShutdown(
    logger,
    async () => {
      await app.close();
      await close();
      // Last: the spans of the shutdown itself are flushed too.
      await telemetry.shutdown();
    },
    { drain: () => platform.drain({ graceMs: config.shutdownGraceMs }) },
  );
} catch (error) {
  exitOnStartupError(logger, error);
}
