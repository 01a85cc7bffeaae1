/**
 * The logger port: where the engine writes one line per inbound delivery and one
 * per run transition. Its shape is a subset of pino's `Logger`, so a pino logger (or a child of
 * one) is passed as it is; anything with these four methods will do. Without one the engine
 * logs nothing ({@link noopLogger}).
 *
 * Lines carry a structured object first and a short message second, as pino takes them. The
 * engine never puts a secret, a signature or an event's payload in them.
 * @module
 */

/** The levels the engine writes at. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  /**
   * Whether a line at `level` would be written. Optional; when present (pino has it) the engine
   * skips building lines nobody reads, which keeps a busy ingest path free of logging work.
   */
  isLevelEnabled?(level: LogLevel): boolean;
}

const nothing = (): void => {};

/** Writes nothing, and says so, so no line is even built. */
export const noopLogger: Logger = Object.freeze({
  debug: nothing,
  info: nothing,
  warn: nothing,
  error: nothing,
  isLevelEnabled: () => false,
});

/** Whether `logger` writes lines at `level` (assumed so when it cannot tell). */
export function logsAt(logger: Logger, level: LogLevel): boolean {
  return logger.isLevelEnabled === undefined || logger.isLevelEnabled(level);
}
