/**
 * The server's logs: pino, as JSON lines — or, when stdout is a terminal, as one
 * human-readable line each (`pino-pretty`). `AGENT_PLATFORM_LOG_FORMAT=pretty|json` overrides the
 * choice. Credentials in headers are redacted should anything ever log them.
 * @module
 */
import { trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import { build as prettyStream, type MessageFormatFunc } from 'pino-pretty';

export type LogFormat = 'pretty' | 'json';

export interface LoggerOptions {
  /** Default: `AGENT_PLATFORM_LOG_FORMAT`, else `pretty` when stdout is a terminal and `json` otherwise. */
  format?: LogFormat;
  /** Where lines go. Default: stdout. */
  destination?: NodeJS.WritableStream;
}

/** `AGENT_PLATFORM_LOG_FORMAT` (`pretty` or `json`), else by whether stdout is a terminal; `invalid` holds a value not understood. */
export function logFormatFrom(value: string | undefined, stdoutIsTTY: boolean): { format: LogFormat; invalid: string | null } {
  const text = value?.trim().toLowerCase();
  if (text === 'pretty' || text === 'json') return { format: text, invalid: null };
  return { format: stdoutIsTTY ? 'pretty' : 'json', invalid: text ? (value as string).slice(0, 50) : null };
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const chosen = options.format
    ? { format: options.format, invalid: null }
    : logFormatFrom(process.env.AGENT_PLATFORM_LOG_FORMAT, Boolean(process.stdout.isTTY));
  const settings = {
    level,
    mixin: traceMixin,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-session-api-key"]', 'req.headers.cookie', '*.webhook_secret', '*.key', '*.token'],
      censor: '[redacted]',
    },
  };
  const logger =
    chosen.format === 'pretty'
      ? pino(
          settings,
          prettyStream({
            colorize: options.destination ? false : Boolean(process.stdout.isTTY),
            translateTime: 'SYS:HH:MM:ss.l',
            ignore: 'pid,hostname',
            hideObject: true,
            messageFormat: formatLine,
            sync: true,
            destination: options.destination ?? 1,
          }),
        )
      : options.destination
        ? pino(settings, options.destination)
        : pino(settings);
  // A log format is not worth refusing to start over: say so, and go on.
  if (chosen.invalid !== null) logger.warn(`AGENT_PLATFORM_LOG_FORMAT must be pretty or json, got "${chosen.invalid}"; logging ${chosen.format}`);
  return logger;
}

/**
 * `trace_id` and `span_id` of the active span, on every line logged inside one (a delivery, a
 * run), so a line leads to its trace; nothing when no span is active (or none records: no
 * tracing installed). Fields a line sets itself win over these.
 */
export function traceMixin(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** Shown in the line's head (time, level) or not worth a column. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'kind']);
const ERROR_KEYS = new Set(['err', 'error']);

/**
 * A pretty line: the message, then every field as `key=value` on the same line (logfmt-like),
 * so a delivery or a run transition reads as one line. An error's stack follows on its own lines.
 */
export const formatLine: MessageFormatFunc = (log, messageKey, _levelLabel, { colors }) => {
  let line = typeof log[messageKey] === 'string' ? (log[messageKey] as string) : '';
  let stack = '';
  for (const [key, value] of Object.entries(log)) {
    if (key === messageKey || HIDDEN.has(key) || value === undefined) continue;
    if (ERROR_KEYS.has(key) && typeof value === 'object' && value !== null) {
      const error = value as { message?: unknown; stack?: unknown };
      line += ` ${colors.gray(`${key}=`)}${formatValue(error.message ?? value)}`;
      if (typeof error.stack === 'string') stack += `\n    ${error.stack.replaceAll('\n', '\n    ')}`;
      continue;
    }
    line += ` ${colors.gray(`${key}=`)}${formatValue(value)}`;
  }
  return line + stack;
};

/** Bare when it is one printable word, else quoted as JSON (which also escapes control characters). */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[\x21-\x7e]+$/.test(value) && !/["=]/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) {
    return value.length === 0 ? '[]' : value.map((item) => formatValue(item)).join(',');
  }
  return JSON.stringify(value) ?? String(value);
}
