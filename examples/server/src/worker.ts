/**
 * A worker-only process: `pnpm --dir examples/server worker`, with the server's environment. It
 * serves no HTTP; it executes runs from the shared database beside the servers, so adding
 * workers adds run capacity. Useful with `DATABASE_URL` (PostgreSQL); embedded PGlite is one
 * process only.
 */
import { loadConfig } from './config.js';
import { exitOnStartupError, onShutdown } from './lifecycle.js';
import { createLogger } from './logger.js';
import { createServerPlatform } from './platform.js';

const logger = createLogger(process.env.LOG_LEVEL || 'info');

try {
  const config = loadConfig();
  logger.level = config.logLevel;
  const { platform, close } = await createServerPlatform(config, logger);
  await platform.start();
  logger.info({ workerId: platform.executor?.workerId }, 'agent-platform worker ready');
  onShutdown(logger, close);
} catch (error) {
  exitOnStartupError(logger, error);
}
