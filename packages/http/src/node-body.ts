import type { IncomingMessage } from 'node:http';
import { tooLarge } from './body.js';

/**
 * Reads a Node request's raw body, refusing (413) as soon as it passes `limit`, so an oversized
 * upload is never buffered whole. A declared `Content-Length` over the limit is refused before
 * reading anything.
 */
export async function readNodeBody(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > limit) {
      request.resume();
      throw tooLarge(limit);
    }
    chunks.push(buffer);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
