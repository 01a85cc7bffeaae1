import type { IncomingMessage } from 'node:http';
import type { HeaderValue } from '../exchange/types.js';

/**
 * A Node request's headers as the handler needs them. Node keeps only the first of repeated
 * `Authorization` headers in `request.headers`, which would let a request carrying two keys be
 * served with one of them; when it is repeated, every value is taken from `rawHeaders`.
 */
export function nodeRequestHeaders(request: IncomingMessage): Record<string, HeaderValue> {
  const raw = request.rawHeaders;
  let authorization: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') {
      authorization ??= [];
      authorization.push(raw[i + 1] as string);
    }
  }
  if (!authorization || authorization.length < 2) return request.headers;
  return { ...request.headers, authorization };
}
