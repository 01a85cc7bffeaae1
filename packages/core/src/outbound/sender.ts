/**
 * One HTTP POST of an outbound message, with the safeguards a server sending to user-given URLs
 * needs: the address checked (literal hosts here, names by {@link guardedLookup} as they are
 * resolved), redirects never followed (a redirect could point anywhere), a time limit on the
 * whole exchange, and the response read only up to a small bound and never kept.
 * @module
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { blockedAddressReason, ipLiteralOf, isLocalhostName } from './address-policy.js';
import { guardedLookup } from './guarded-lookup.js';

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Let the request reach loopback, private and link-local addresses. */
  allowPrivate: boolean;
}

export interface OutboundResponse {
  /** The subscriber's HTTP status; `null` when none came. */
  statusCode: number | null;
  /** Why the attempt failed; `null` for a 2xx answer. */
  error: string | null;
}

/** Response bytes read (and dropped) before the connection is closed. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export async function sendOutbound(outbound: OutboundRequest): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(outbound.url);
  } catch {
    return { statusCode: null, error: 'the subscription URL is not a valid URL' };
  }
  if (!outbound.allowPrivate) {
    const literal = ipLiteralOf(url.hostname);
    const reason = literal !== null ? blockedAddressReason(literal) : isLocalhostName(url.hostname) ? `${url.hostname} is this machine (loopback)` : null;
    if (reason !== null) return { statusCode: null, error: `refused: ${reason}` };
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: OutboundResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...outbound.headers, 'content-length': String(Buffer.byteLength(outbound.body)) },
        // A fresh connection per message: a pooled socket would skip the address check.
        agent: false,
        ...(outbound.allowPrivate ? {} : { lookup: guardedLookup }),
      },
      (response) => finish(readAndJudge(response)),
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ statusCode: null, error: `no answer within ${outbound.timeoutMs} ms` });
    }, outbound.timeoutMs);
    timer.unref();
    request.on('error', (error: Error) => {
      const message = error.name === 'BlockedAddressError' ? `refused: ${error.message}` : `connection failed: ${error.message}`;
      finish({ statusCode: null, error: message });
    });
    request.end(outbound.body);
  });
}

/** The attempt's result from the status line; the body is drained up to a bound, then dropped. */
function readAndJudge(response: IncomingMessage): OutboundResponse {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > MAX_RESPONSE_BYTES) response.destroy();
  });
  response.on('error', () => {});
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return { statusCode: status, error: null };
  if (status >= 300 && status < 400) return { statusCode: status, error: `answered ${status}: redirects are not followed` };
  return { statusCode: status, error: `answered ${status}` };
}
