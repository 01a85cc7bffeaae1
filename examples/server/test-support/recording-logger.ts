/** A pino logger whose lines tests can read. Test support: no server code imports it. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export function recordingLogger(): { logger: Logger; lines: LogLine[]; messages: (level?: 'info' | 'warn' | 'error' | 'fatal') => string[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const levels = { info: 30, warn: 40, error: 50, fatal: 60 };
  return {
    logger: pino({ level: 'info' }, sink),
    lines,
    messages: (level) => lines.filter((line) => level === undefined || line.level === levels[level]).map((line) => line.msg),
  };
}
