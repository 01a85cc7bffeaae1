/**
 * HTTP/1.1 over a bare `node:net` socket: the fuzzer writes exactly the bytes it wants (NUL in a
 * header, duplicate headers, invalid percent-encodings, lying `Content-Length`), which `fetch`
 * and `node:http` refuse to send, and reads one answer back with a deadline.
 * @module
 */
import { connect } from 'node:net';

/** A request as the fuzzer means it; `serialize` turns it into the bytes on the wire. */
export interface WireRequest {
  method: string;
  /** The request-target, written as is (so `%FF` stays `%FF`, and raw bytes stay raw). */
  target: Buffer;
  /** In order, duplicates allowed; values are raw bytes. */
  headers: Array<[string, Buffer]>;
  body: Buffer | null;
  framing: Framing;
  /** `HTTP/1.1` unless mutated. */
  version?: string;
}

/**
 * How the body is delimited: `length` (an honest Content-Length), `chunked`, `bad-chunked`
 * (an invalid chunk size), `unterminated-chunked` (no last chunk: the body never ends),
 * `short` (Content-Length larger than what is sent: the body never ends), `long` (Content-Length
 * smaller: the rest looks like a pipelined request), `conflicting` (Content-Length and
 * Transfer-Encoding), `duplicate-length` (two different Content-Length), `bad-length`
 * (`Content-Length: -1`), `none` (bytes with no length at all), `unterminated-headers` (the
 * headers never end, nor does the request).
 */
export type Framing =
  | 'length'
  | 'chunked'
  | 'bad-chunked'
  | 'unterminated-chunked'
  | 'short'
  | 'long'
  | 'conflicting'
  | 'duplicate-length'
  | 'bad-length'
  | 'none'
  | 'unterminated-headers';

/** Framings after which an honest server may wait for more bytes: it cannot know the body ended. */
export const OPEN_ENDED_FRAMINGS: ReadonlySet<Framing> = new Set(['short', 'unterminated-chunked', 'unterminated-headers']);

export type RawResult =
  | { kind: 'response'; status: number; headers: Record<string, string[]>; body: Buffer; ms: number }
  /** No complete answer before the deadline. */
  | { kind: 'timeout'; ms: number; received: number }
  /** The server closed (or reset) the connection without a complete answer. */
  | { kind: 'closed'; ms: number; received: number; error?: string };

const CRLF = '\r\n';

export function serialize(request: WireRequest): Buffer {
  const head: Buffer[] = [Buffer.from(`${request.method} `, 'latin1'), request.target, Buffer.from(` ${request.version ?? 'HTTP/1.1'}${CRLF}`, 'latin1')];
  const headerLine = (name: string, value: Buffer | string) => {
    head.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from(CRLF, 'latin1'));
  };
  for (const [name, value] of request.headers) headerLine(name, value);
  const body = request.body ?? Buffer.alloc(0);
  let payload: Buffer = body;
  switch (request.framing) {
    case 'length':
      if (request.body !== null) headerLine('Content-Length', String(body.length));
      break;
    case 'chunked':
    case 'bad-chunked':
    case 'unterminated-chunked': {
      headerLine('Transfer-Encoding', 'chunked');
      const size = request.framing === 'bad-chunked' ? 'zz' : body.length.toString(16);
      const last = request.framing === 'unterminated-chunked' ? '' : `0${CRLF}${CRLF}`;
      payload =
        body.length === 0 && request.framing === 'chunked'
          ? Buffer.from(last, 'latin1')
          : Buffer.concat([Buffer.from(`${size}${CRLF}`, 'latin1'), body, Buffer.from(`${CRLF}${last}`, 'latin1')]);
      break;
    }
    case 'short':
      headerLine('Content-Length', String(body.length + 1000));
      break;
    case 'long':
      headerLine('Content-Length', String(Math.max(0, body.length >> 1)));
      break;
    case 'conflicting':
      headerLine('Content-Length', String(body.length));
      headerLine('Transfer-Encoding', 'chunked');
      break;
    case 'duplicate-length':
      headerLine('Content-Length', String(body.length));
      headerLine('Content-Length', String(body.length + 1));
      break;
    case 'bad-length':
      headerLine('Content-Length', '-1');
      break;
    case 'none':
      break;
    case 'unterminated-headers':
      // The blank line that ends the headers never comes (slowloris).
      return Buffer.concat(head);
  }
  head.push(Buffer.from(CRLF, 'latin1'));
  return Buffer.concat([...head, payload]);
}

/**
 * Sends `bytes` on a fresh connection and reads one final answer (1xx answers are skipped). The
 * socket is never half-closed: a server waiting for the rest of a body sees no EOF, as with a
 * slow client. Always destroys the socket before resolving.
 */
export function sendRaw(options: { host: string; port: number; bytes: Buffer; timeoutMs: number; head?: boolean }): Promise<RawResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<RawResult>((resolve) => {
    const socket = connect({ host: options.host, port: options.port });
    let buffered: Buffer = Buffer.alloc(0);
    let received = 0;
    let done = false;
    const finish = (result: RawResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', ms: elapsed(), received }), options.timeoutMs);
    socket.setNoDelay(true);
    socket.on('connect', () => {
      // The server may answer (and close) before reading everything: write errors are expected.
      socket.write(options.bytes, () => undefined);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const parsed = parseResponse(buffered, options.head === true, false);
      if (parsed) finish({ ...parsed, ms: elapsed() });
    });
    const onEnd = (error?: Error) => {
      const parsed = parseResponse(buffered, options.head === true, true);
      if (parsed) finish({ ...parsed, ms: elapsed() });
      else finish({ kind: 'closed', ms: elapsed(), received, ...(error ? { error: (error as NodeJS.ErrnoException).code ?? error.message } : {}) });
    };
    socket.on('error', (error) => onEnd(error));
    socket.on('end', () => onEnd());
    socket.on('close', () => onEnd());
  });
}

type Parsed = { kind: 'response'; status: number; headers: Record<string, string[]>; body: Buffer };

/** The first final response in `data`, or null while it is incomplete. `ended`: no more bytes will come. */
function parseResponse(data: Buffer, head: boolean, ended: boolean): Parsed | null {
  let offset = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', offset, 'latin1');
    if (end < 0) return null;
    const lines = data.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) return ended ? { kind: 'response', status: 0, headers: {}, body: data.subarray(offset) } : null;
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const values = headers[name] ?? [];
      headers[name] = values;
      values.push(line.slice(colon + 1).trim());
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    if (head || status === 204 || status === 304) return { kind: 'response', status, headers, body: Buffer.alloc(0) };
    // An event stream is answered once its headers are in: it stays open by design.
    if (status >= 200 && status < 300 && headers['content-type']?.some((value) => /^text\/event-stream/i.test(value)))
      return { kind: 'response', status, headers, body: data.subarray(bodyStart) };
    const rest = data.subarray(bodyStart);
    if (headers['transfer-encoding']?.some((value) => /chunked/i.test(value))) {
      const body = decodeChunked(rest);
      if (body) return { kind: 'response', status, headers, body };
      return ended ? { kind: 'response', status, headers, body: rest } : null;
    }
    const length = headers['content-length']?.[0];
    if (length !== undefined) {
      const size = Number(length);
      if (rest.length >= size) return { kind: 'response', status, headers, body: rest.subarray(0, size) };
      return ended ? { kind: 'response', status, headers, body: rest } : null;
    }
    return ended ? { kind: 'response', status, headers, body: rest } : null;
  }
}

function decodeChunked(data: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset, 'latin1');
    if (lineEnd < 0) return null;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    if (data.length < lineEnd + 2 + size + 2) return null;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
