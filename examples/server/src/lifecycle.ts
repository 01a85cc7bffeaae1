/**
 * How the example servers and the worker start and stop: a clean stop exits 0, a start that
 * cannot go on prints why in one line and exits 1.
 * @module
 */
import type { Logger } from 'pino';

/**
 * A Ctrl-C reaches the server more than once: the terminal signals the whole process group, and
 * pnpm and tsx each pass the signal on to their child as well. Copies within this window are that
 * one Ctrl-C; a signal after it is someone insisting, and stops the process at once.
 */
const SAME_INTERRUPT_MS = 1000;

export interface ShutdownOptions {
  /**
   * The first step of a stop, before `stop` itself: the platform's drain. From the signal on,
   * readiness answers 503 and no run is claimed here; the runs executing here get the grace to
   * finish, then the rest are handed back to another process. The HTTP server keeps serving
   * meanwhile (requests in flight, streams, and probes that see the 503).
   */
  drain?: () => Promise<void>;
}

/**
 * Stops cleanly on SIGTERM / SIGINT: drain (see {@link ShutdownOptions.drain}), then `stop`
 * (finish in-flight requests, end event streams, stop the engine), exit 0. A second signal after
 * the first Ctrl-C's copies stops at once, grace or not.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, options: ShutdownOptions = {}): void {
  let firstSignalAt: number | null = null;
  const shutdown = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== null) {
      if (Date.now() - firstSignalAt < SAME_INTERRUPT_MS) return;
      logger.warn({ signal }, 'stopping at once, without waiting for in-flight work');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    firstSignalAt = Date.now();
    logger.info({ signal }, options.drain ? 'shutting down: not ready any more, letting running runs finish' : 'shutting down');
    (options.drain ? options.drain() : Promise.resolve()).then(stop).then(
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
  // `on`, not `once`: with the listener gone, a second copy of the signal would kill the process
  // (tsx's child exits 130 then), and pnpm would report the clean stop as a failure.
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/**
 * Why the server cannot start, in one line naming what to change, for the errors a user fixes
 * (configuration, a port in use); `null` for anything else, which is logged with its stack.
 */
export function startupProblem(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  if (error.name === 'ConfigError') return error.message;
  const { code, port, address } = error as NodeJS.ErrnoException & { port?: number; address?: string };
  const where = port === undefined ? 'the port' : `port ${port}${address ? ` on ${address}` : ''}`;
  if (code === 'EADDRINUSE') return `${where} is already in use (another server running?): stop it, or set PORT to another port`;
  if (code === 'EACCES' && error.message.includes('listen')) return `no permission to listen on ${where}: set PORT to a port above 1023`;
  if (code === 'EADDRNOTAVAIL') return `${where}: HOST is not an address of this machine`;
  return null;
}

/** Prints why the server cannot start and exits 1: one line, without a stack, when the user can fix it. */
export function exitOnStartupError(logger: Logger, error: unknown): never {
  const problem = startupProblem(error);
  if (problem) logger.fatal(`failed to start: ${problem}`);
  else logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
}
