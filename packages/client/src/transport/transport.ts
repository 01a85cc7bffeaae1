/**
 * One place where requests are made: the method and path from the endpoint's key, credentials,
 * retries and timeouts (ky), and the mapping of every failure to the client's error types.
 * @module
 */
import ky, { HTTPError, TimeoutError, type KyInstance, type RetryOptions } from 'ky';
import type { ValidationIssue } from '@agent-platform/core/schemas';
import { AgentPlatformConnectionError, AgentPlatformError, AgentPlatformTimeoutError } from './errors.js';
import {
  splitRouteKey,
  type CredentialScheme,
  type RequestRouteKey,
  type RouteArgs,
  type RouteKey,
  type RouteParamsArgs,
  type RouteResponse,
  type StreamRouteKey,
} from './routes.js';

/** Per-call options every client method takes last. */
export interface CallOptions {
  /** Aborts the call (and its retries); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms for this call, or `false` for none; defaults to the client's. */
  timeout?: number | false;
  /** Extra request headers for this call. */
  headers?: Record<string, string>;
}

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export type Query = Record<string, QueryValue>;

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  sessionApiKey?: string | undefined;
  fetch?: typeof globalThis.fetch | undefined;
  retry?: number | RetryOptions | undefined;
  timeout?: number | false | undefined;
  headers?: Record<string, string> | undefined;
}

/** What the transport reads of a `RouteInit` at run time (the types are checked at the call). */
interface CallInit {
  params?: Record<string, string>;
  query?: Query;
  json?: unknown;
  body?: Uint8Array | string;
  credential?: CredentialScheme;
  headers?: Record<string, string>;
}

/** Methods the client retries by default: the idempotent ones. POST and PATCH never are. */
export const IDEMPOTENT_METHODS = ['get', 'put', 'head', 'delete', 'options', 'trace'] as const;
/** Statuses worth a retry. 413 is not (ky's default list has it: the body will not shrink). */
export const RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504] as const;
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * What `call` accepts: JSON first, and the text and binary answers a few endpoints give (a
 * file's text, a zip). The route's declared content type is what comes either way.
 */
const ACCEPT = 'application/json, text/*;q=0.9, */*;q=0.8';

/**
 * Requests by endpoint key (`'GET /api/automation/v1/runs/{run_id}'`), typed from the server's
 * route table: the path parameters, query, body and credential the endpoint takes, and what it
 * answers.
 */
export interface Transport {
  /**
   * Calls an endpoint and answers its body, read as the answer's `content-type` says (which is
   * what the route declares, its `responseType`): parsed JSON, a `string` for `text/*`, a `Blob`
   * for anything else (`application/zip`); `undefined` for a 204. Any non-2xx answer rejects
   * with `AgentPlatformError`; no answer, with `AgentPlatformConnectionError`.
   */
  call<K extends RequestRouteKey>(route: K, ...args: RouteArgs<K>): Promise<RouteResponse<K>>;
  /** The absolute URL of an endpoint's path (what a webhook sender would be configured with). */
  url<K extends RouteKey>(route: K, ...params: RouteParamsArgs<K>): string;
  /**
   * Opens a streamed answer (Server-Sent Events): the `Response` once its headers are in, its
   * body unread, for the caller to read and cancel. The same credentials, headers and error
   * mapping as {@link call}, no retries (the stream reconnects itself), and the timeout applies
   * to the headers only.
   */
  open<K extends StreamRouteKey>(route: K, ...args: RouteArgs<K>): Promise<Response>;
}

/** The transport's functions as they run: the key's two halves and an init read loosely. */
interface UntypedTransport {
  call(route: string, init?: CallInit, options?: CallOptions): Promise<unknown>;
  url(route: string, params?: Record<string, string>): string;
  open(route: string, init?: CallInit, options?: CallOptions): Promise<Response>;
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const http: KyInstance = ky.create({
    timeout,
    retry: retryOptions(options.retry),
    throwHttpErrors: true,
    fetch: markingNetworkFailures(options.fetch),
    ...(options.headers ? { headers: options.headers } : {}),
  });

  const transport: UntypedTransport = {
    url: (route, params = {}) => `${baseUrl}${fillPath(splitRouteKey(route).path, params)}`,
    async call(route, init = {}, call = {}) {
      const { method, path } = splitRouteKey(route);
      const target = `${baseUrl}${fillPath(path, init.params ?? {})}`;
      const headers: Record<string, string> = { accept: ACCEPT, ...credentials(init.credential ?? 'bearer', options), ...init.headers, ...call.headers };
      let response: Response;
      try {
        response = await http(target, {
          method,
          headers,
          ...(init.query ? { searchParams: toSearchParams(init.query) } : {}),
          ...(init.json !== undefined ? { json: init.json } : {}),
          ...(init.body !== undefined ? { body: init.body } : {}),
          ...(call.signal ? { signal: call.signal } : {}),
          ...(call.timeout !== undefined ? { timeout: call.timeout } : {}),
        });
      } catch (error) {
        throw await toClientError(error, method, target, call.timeout ?? timeout, call.signal);
      }
      return readSuccess(response, method, target);
    },
    async open(route, init = {}, call = {}) {
      const { method, path } = splitRouteKey(route);
      const target = `${baseUrl}${fillPath(path, init.params ?? {})}`;
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        ...credentials(init.credential ?? 'bearer', options),
        ...init.headers,
        ...call.headers,
      };
      try {
        return await http(target, {
          method,
          headers,
          retry: 0,
          ...(init.query ? { searchParams: toSearchParams(init.query) } : {}),
          ...(call.signal ? { signal: call.signal } : {}),
          ...(call.timeout !== undefined ? { timeout: call.timeout } : {}),
        });
      } catch (error) {
        throw await toClientError(error, method, target, call.timeout ?? timeout, call.signal);
      }
    },
  };
  // The one place the typed signatures meet the loose ones: `RouteArgs<K>` is a `CallInit` and
  // the options for every K, and the answer is what the route table says the endpoint answers.
  return transport as unknown as Transport;
}

/** The credential headers for a call: its preferred scheme, with whichever key is configured. */
function credentials(scheme: CredentialScheme, options: TransportOptions): Record<string, string> {
  if (scheme === 'none') return {};
  const session = options.sessionApiKey ?? options.apiKey;
  const bearer = options.apiKey ?? options.sessionApiKey;
  if (scheme === 'session') return session ? { 'x-session-api-key': session } : {};
  return bearer ? { authorization: `Bearer ${bearer}` } : {};
}

function retryOptions(retry: number | RetryOptions | undefined): RetryOptions {
  const defaults: RetryOptions = {
    limit: 2,
    methods: [...IDEMPOTENT_METHODS],
    statusCodes: [...RETRY_STATUS_CODES],
    retryOnTimeout: true,
    maxRetryAfter: 60_000,
  };
  if (retry === undefined) return defaults;
  if (typeof retry === 'number') return { ...defaults, limit: retry };
  return { ...defaults, ...retry };
}

/** `http://host:3000/prefix/` → `http://host:3000/prefix` (paths in the table start with `/`). */
function normalizeBaseUrl(baseUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http or https URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (parsed.search || parsed.hash) throw new TypeError('baseUrl must not have a query or fragment');
  return parsed.href.replace(/\/+$/, '');
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
    return encodeURIComponent(value);
  });
}

function toSearchParams(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, item);
    else params.append(name, String(value));
  }
  return params;
}

/**
 * How a success answer is read, by its `content-type` (at run time the client has no route
 * table; the header is what the route declares, so it matches the route's `responseType`):
 * JSON media types (`application/json`, `application/*+json`) and an answer without the header
 * are parsed as JSON; `text/*` is read as text; anything else (`application/zip`, ...) as bytes.
 */
function answerKind(contentType: string | null): 'json' | 'text' | 'binary' {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === '' || mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'))) return 'json';
  return mediaType.startsWith('text/') ? 'text' : 'binary';
}

/** The body of a 2xx: `undefined` for a 204, else read as {@link answerKind} says. */
async function readSuccess(response: Response, method: string, url: string): Promise<unknown> {
  if (response.status === 204) return undefined;
  const kind = answerKind(response.headers.get('content-type'));
  // A file's text may be empty: `""` is its answer, not `undefined`.
  if (kind === 'text') return response.text();
  // A `Blob` whose `type` is the answer's content type.
  if (kind === 'binary') return response.blob();
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AgentPlatformError({ status: response.status, detail: 'The answer is not JSON', method, url });
  }
}

async function toClientError(error: unknown, method: string, url: string, timeout: number | false, signal: AbortSignal | undefined): Promise<unknown> {
  if (error instanceof HTTPError) {
    return new AgentPlatformError({ status: error.response.status, detail: await readDetail(error.response), method, url });
  }
  // The caller's own abort stays what it is: the signal's reason (an AbortError by default).
  if (signal?.aborted) return signal.reason ?? error;
  if (error instanceof TimeoutError) return new AgentPlatformTimeoutError(method, url, typeof timeout === 'number' ? timeout : 0, error);
  if (error instanceof NetworkFailure) {
    const cause = error.cause;
    const reason = cause instanceof Error ? `: ${cause.cause instanceof Error ? cause.cause.message : cause.message}` : '';
    return new AgentPlatformConnectionError('network', method, url, `${method} ${url} failed before an answer came${reason}`, cause);
  }
  // Anything else (a header value fetch refuses, say) is the caller's to see as it is.
  return error;
}

/** A failure of `fetch` itself: no answer came. Told apart from errors in building the request. */
class NetworkFailure extends Error {
  constructor(cause: unknown) {
    super('fetch failed', { cause });
  }
}

/**
 * The `fetch` ky calls, with its own failures marked as network failures. An abort (the caller's,
 * or ky's on a timeout) stays as it is, for ky and for {@link toClientError} to read.
 */
function markingNetworkFailures(base: typeof globalThis.fetch | undefined): typeof globalThis.fetch {
  return async (input, init) => {
    try {
      return await (base ?? globalThis.fetch)(input, init);
    } catch (error) {
      const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      if (signal?.aborted) throw error;
      throw new NetworkFailure(error);
    }
  };
}

/** `detail` of an error answer: the message, or the 422 issue list; the raw text when it is not our JSON. */
async function readDetail(response: Response): Promise<string | ValidationIssue[]> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // the body could not be read; fall back to the status text
  }
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
    if (Array.isArray(body.detail)) return body.detail as ValidationIssue[];
  } catch {
    // not JSON: a proxy's page, say
  }
  return text.slice(0, 1000) || response.statusText || `HTTP ${response.status}`;
}
