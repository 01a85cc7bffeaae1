import type { Logger } from 'pino';

/** Stops cleanly on SIGTERM / SIGINT: finish in-flight requests, stop the engine, exit 0. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/** Prints a configuration error without a stack and exits 1. */
export function exitOnStartupError(logger: Logger, error: unknown): never {
  logger.fatal({ err: error instanceof Error && error.name === 'ConfigError' ? { message: error.message } : error }, 'failed to start');
  process.exit(1);
}
