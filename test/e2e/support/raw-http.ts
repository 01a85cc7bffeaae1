/**
 * Raw HTTP/1.1 over a socket, for requests `fetch` refuses to send: NUL bytes and duplicates in
 * headers, invalid percent-encodings, huge headers, bodies that never end.
 * @module
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or `undefined`. */
  json: any;
}

/** Decodes a chunked transfer-encoded body. */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parse(raw: Buffer): RawAnswer {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, split < 0 ? raw.length : split).toString('latin1');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let bodyBytes = split < 0 ? Buffer.alloc(0) : raw.subarray(split + 4);
  if (headers['transfer-encoding']?.includes('chunked')) bodyBytes = dechunk(bodyBytes);
  else if (headers['content-length']) bodyBytes = bodyBytes.subarray(0, Number(headers['content-length']));
  const body = bodyBytes.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, json };
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the final blank line) and
 * `body` as they are, with `Connection: close`; resolves with the answer once the server closes
 * the connection, or rejects after `timeoutMs` with `timed out`.
 */
export function rawRequest(baseUrl: string, head: string, body: string | Buffer = '', timeoutMs = 10_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('timed out'));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {
      // A reset after the answer is written still leaves the answer to parse.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks)));
    });
    socket.write(Buffer.concat([Buffer.from(`${head}\r\nConnection: close\r\n\r\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]));
  });
}

/**
 * Starts a chunked request whose body never ends: sends one chunk and then nothing. Resolves
 * with the answer (or `null` when the server closed without one) and how long it took.
 */
export function neverEndingBody(baseUrl: string, head: string, giveUpMs = 60_000): Promise<{ answer: RawAnswer | null; ms: number }> {
  const { hostname, port } = new URL(baseUrl);
  const began = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      resolve({ answer: raw.length > 0 ? parse(raw) : null, ms: Date.now() - began });
    });
    socket.write(`${head}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n5\r\n{"a":\r\n`);
  });
}
