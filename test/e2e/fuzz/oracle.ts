/**
 * What a fuzzed answer must satisfy, and how violations are grouped. A violation's `key` names
 * its cause as narrowly as the answer allows (the server's log for a 5xx, the body's shape for a
 * shape error), so one bug found through many routes is one finding.
 * @module
 */
import type { FuzzCase } from './requests.js';
import type { RawResult } from './raw-http.js';

export type ViolationKind = 'server-exit' | '5xx' | 'hang' | 'health' | 'shape' | 'echo';

export interface Violation {
  kind: ViolationKind;
  /** Groups violations with one cause; also what minimization keeps failing on. */
  key: string;
  /** One line on this occurrence. */
  summary: string;
}

const OPEN_ENDED: Partial<Record<string, string>> = {
  short: 'body shorter than its Content-Length, never completed',
  'unterminated-chunked': 'chunked body whose last chunk never comes',
  'unterminated-headers': 'headers that never end',
};

/** The longest stretch of request text a non-2xx answer may repeat. */
export const MAX_ECHO = 200;

/** Severity order, most severe first. */
export const KIND_ORDER: ViolationKind[] = ['server-exit', '5xx', 'hang', 'health', 'echo', 'shape'];

/** Ids, numbers and long runs replaced, so keys group by cause rather than by value. */
export function normalize(text: string, max = 120, digits = true): string {
  const folded = text.replace(/[a-z]{2,5}_[0-9a-f]{16,}/g, '<id>').replace(/(.)\1{15,}/gs, (_whole, char: string) => `${char}…`);
  return (digits ? folded.replace(/\d+/g, 'N') : folded).replace(/\s+/g, ' ').slice(0, max);
}

/** The errors the server logged while serving a request (pino JSON lines at level >= 50). */
export function loggedErrors(log: string, keepNoise = true): string[] {
  const errors = new Set<string>();
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { type?: string; message?: string; code?: string } };
      if ((entry.level ?? 0) < 50) continue;
      const err = entry.err;
      // Digits kept: in database errors they name the cause ("0x00", "22021").
      errors.add(
        err
          ? `${err.type ?? 'Error'}${err.code ? `(${err.code})` : ''}: ${normalize((err.message ?? '').split('\n')[0] ?? '', 100, false)}`
          : normalize(entry.msg ?? '', 100, false),
      );
    } catch {
      // not a log line
    }
  }
  // A client that went away (a hung request the fuzzer gave up on) is noise here, unless it is all there is.
  const relevant = [...errors].filter((error) => !/\((ECONNRESET|ECONNABORTED|EPIPE)\)/.test(error));
  return relevant.length > 0 || !keepNoise ? relevant : [...errors];
}

export function judge(fuzzCase: FuzzCase, result: RawResult, log: string): Violation[] {
  const { request } = fuzzCase;
  if (result.kind === 'timeout') {
    const summary = `no answer within ${result.ms} ms (${result.received} bytes received)`;
    // A request that never ends: its framing is the cause, whatever else it carries.
    const open = OPEN_ENDED[request.framing];
    if (open) return [{ kind: 'hang', key: `hang: ${open} (frame:${request.framing})`, summary }];
    const tags = fuzzCase.tags.filter((tag) => /^(hdr|frame|method|body|ct):/.test(tag) && !['body:valid', 'body:none'].includes(tag)).sort();
    return [{ kind: 'hang', key: `hang: complete request not answered [${tags.join(' ') || fuzzCase.route}]`, summary }];
  }
  if (result.kind === 'closed') return [];
  const violations: Violation[] = [];
  const { status, headers, body } = result;
  if (status >= 500 && !(status === 503 && headers['retry-after'])) {
    const errors = loggedErrors(log);
    violations.push({
      kind: '5xx',
      key: `${status}: ${errors.length > 0 ? errors.join(' | ') : `(nothing logged) ${normalize(body.toString('utf8'), 80)}`}`,
      summary: `HTTP ${status} ${body.toString('utf8').slice(0, 200)}`,
    });
  }
  if (status === 0) {
    violations.push({ kind: 'shape', key: 'shape: not an HTTP response', summary: body.toString('latin1').slice(0, 200) });
    return violations;
  }
  const is2xx = status >= 200 && status < 300;
  if (!is2xx && body.length > 0) {
    violations.push(...shapeOf(status, headers, body));
    const echo = echoOf(fuzzCase, body);
    if (echo) {
      const source = echo.source;
      violations.push({
        kind: 'echo',
        key: `echo: ${status} repeats ${source}`,
        summary: `repeats ${echo.length} characters of the request's ${source}: ${JSON.stringify(echo.excerpt.slice(0, 80))}…`,
      });
    }
  }
  return violations;
}

function shapeOf(status: number, headers: Record<string, string[]>, body: Buffer): Violation[] {
  const contentType = headers['content-type']?.join(', ') ?? '(none)';
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [
      {
        kind: 'shape',
        key: `shape: ${status} body is not JSON (${normalize(contentType, 40)}): ${normalize(text, 60)}`,
        summary: `${contentType}: ${text.slice(0, 200)}`,
      },
    ];
  }
  const violations: Violation[] = [];
  const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  const keys = isObject ? Object.keys(parsed as object).sort() : [];
  if (!isObject || keys.length !== 1 || keys[0] !== 'detail') {
    const code = isObject ? (parsed as Record<string, unknown>).code : undefined;
    const shape = isObject ? `{${keys.join(',')}}` : Array.isArray(parsed) ? 'array' : typeof parsed;
    violations.push({ kind: 'shape', key: `shape: ${status} ${shape}${typeof code === 'string' ? ` ${code}` : ''}`, summary: text.slice(0, 300) });
  }
  if (!/json/i.test(contentType))
    violations.push({ kind: 'shape', key: `shape: ${status} JSON body with Content-Type ${normalize(contentType, 40)}`, summary: text.slice(0, 200) });
  return violations;
}

// ---------------------------------------------------------------------------------------------
// Echo: does the answer repeat more than MAX_ECHO characters of the request?

/** Percent-decoding that never throws: invalid escapes stay as they are. */
function percentDecode(bytes: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x25 && i + 2 < bytes.length) {
      const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 2;
        continue;
      }
    }
    out.push(byte === 0x2b ? 0x20 : byte);
  }
  return Buffer.from(out);
}

function jsonStrings(value: unknown, into: string[], depth = 0): void {
  if (depth > 50) return;
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) jsonStrings(item, into, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      jsonStrings(item, into, depth + 1);
    }
  }
}

/** The request as texts an answer might copy from, each with where it came from. */
function requestTexts(fuzzCase: FuzzCase): Array<{ source: string; text: string }> {
  const { request } = fuzzCase;
  const texts: Array<{ source: string; text: string }> = [];
  const add = (source: string, bytes: Buffer) => {
    if (bytes.length <= MAX_ECHO) return;
    texts.push({ source, text: bytes.toString('latin1') }, { source, text: bytes.toString('utf8') });
  };
  add('request-target', request.target);
  add('request-target', percentDecode(request.target));
  for (const [name, value] of request.headers) add(`header ${name}`, value);
  if (request.body && request.body.length > MAX_ECHO) {
    add('body', request.body);
    try {
      const strings: string[] = [];
      jsonStrings(JSON.parse(request.body.toString('utf8')), strings);
      for (const text of strings) if (text.length > MAX_ECHO) texts.push({ source: 'body', text });
    } catch {
      // not JSON: the raw text is enough
    }
  }
  return texts;
}

/** The first stretch of more than MAX_ECHO characters that both the answer and the request hold. */
export function echoOf(fuzzCase: FuzzCase, body: Buffer): { source: string; length: number; excerpt: string } | null {
  const raw = body.toString('utf8');
  if (raw.length <= MAX_ECHO) return null;
  const answers = [raw];
  try {
    const strings: string[] = [];
    jsonStrings(JSON.parse(raw), strings);
    answers.push(...strings.filter((text) => text.length > MAX_ECHO));
  } catch {
    // not JSON
  }
  const texts = requestTexts(fuzzCase);
  if (texts.length === 0) return null;
  // Any common stretch longer than MAX_ECHO holds a window of STEP + 1 characters starting at a
  // multiple of STEP in the answer: look those windows up, then measure the stretch around them.
  const STEP = MAX_ECHO >> 1;
  for (const answer of answers) {
    const limit = Math.min(answer.length, 200_000);
    for (let start = 0; start + STEP + 1 <= limit; start += STEP) {
      const window = answer.slice(start, start + STEP + 1);
      for (const { source, text } of texts) {
        const at = text.indexOf(window);
        if (at < 0) continue;
        let left = 0;
        while (start - left - 1 >= 0 && at - left - 1 >= 0 && answer[start - left - 1] === text[at - left - 1]) left++;
        let right = STEP + 1;
        while (start + right < answer.length && at + right < text.length && answer[start + right] === text[at + right]) right++;
        const length = left + right;
        if (length > MAX_ECHO) return { source, length, excerpt: answer.slice(start - left, start - left + length) };
      }
    }
  }
  return null;
}
