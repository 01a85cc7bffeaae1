/**
 * HTTP/1.1 written by hand over a socket, for requests `fetch` will not send: NUL bytes and
 * repeats in headers, malformed percent-encodings, huge headers, bodies or headers that never
 * end.
 * @module
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or `undefined`. */
  json: any;
  /** Milliseconds from the first byte sent to the connection's close. */
  ms: number;
}

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

function parse(raw: Buffer, ms: number): RawAnswer | null {
  if (raw.length === 0) return null;
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
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, json, ms };
}

export interface RawExchange {
  /** The answer once the server closed the connection (`null`: closed without one), or after `giveUpMs` with what came. */
  answer: Promise<RawAnswer | null>;
  socket: Socket;
}

/**
 * Sends `bytes` as they are and collects whatever comes back until the server closes the
 * connection (or `giveUpMs` passes: then the socket is destroyed and the answer is what came).
 */
export function rawExchange(baseUrl: string, bytes: string | Buffer, giveUpMs = 10_000): RawExchange {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  const began = Date.now();
  const chunks: Buffer[] = [];
  const answer = new Promise<RawAnswer | null>((resolve) => {
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {
      // A reset after the answer was written still leaves the answer to read.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks), Date.now() - began));
    });
  });
  socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  return { answer, socket };
}

/** One request, `Connection: close`: `head` is the request line and headers without the blank line. */
export async function rawRequest(baseUrl: string, head: string, body: string | Buffer = '', giveUpMs = 10_000): Promise<RawAnswer> {
  const bytes = Buffer.concat([Buffer.from(`${head}\r\nConnection: close\r\n\r\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body) : body]);
  const answer = await rawExchange(baseUrl, bytes, giveUpMs).answer;
  if (!answer) throw new Error('the server closed the connection without an answer');
  return answer;
}

/** A chunked request whose body starts and never ends. */
export function neverEndingBody(baseUrl: string, head: string, giveUpMs = 10_000): RawExchange {
  return rawExchange(baseUrl, `${head}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n5\r\n{"a":\r\n`, giveUpMs);
}
