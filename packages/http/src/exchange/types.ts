/**
 * The plain request/response shape the handler speaks; each framework binding converts to and
 * from it in a few lines.
 * @module
 */
import type { z } from 'zod';
import type { Role } from '@agent-platform/core';
import type { AgentPlatform, Principal } from '@agent-platform/core';

export type HeaderValue = string | string[] | undefined;

export interface HttpRequest {
  method: string;
  /** Path and query, e.g. `/api/automation/v1/webhooks?limit=10`. */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, HeaderValue>;
  /** The raw body bytes, kept for signature verification; `null` or empty when there is none. */
  body: Uint8Array | null;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /**
   * The body as it goes on the wire: text (sent as UTF-8: JSON, or a `text/*` answer) or bytes
   * (a binary answer: a zip, ...), or `null` for none (204, or a streamed answer). Every binding
   * writes either kind unchanged.
   */
  body: string | Uint8Array | null;
  /**
   * A body written chunk by chunk as it comes (Server-Sent Events), `body` being `null`. The
   * bindings write each chunk at once and call the iterator's `return()` when the client goes
   * away (or the server closes), which stops whatever feeds it; `return()` must settle at once
   * even while a `next()` is pending (an async generator's would wait for it).
   */
  stream?: AsyncIterable<string>;
}

/**
 * What a route's handler gets. A route made with `defineRoute` gets `params`, `query` and `body`
 * validated and typed by its schemas; an untyped {@link RouteDefinition} gets them as they came
 * (the defaults).
 */
export interface RouteContext<Params = Record<string, string>, Query = URLSearchParams, Body = unknown> {
  platform: AgentPlatform;
  /** Set on authenticated routes. */
  principal: Principal;
  /** The path parameters, decoded (and parsed with the route's `params` schema, if any). */
  params: Params;
  /** The query, parsed with the route's `query` schema (`{}` without one); an untyped route's `URLSearchParams`. */
  query: Query;
  headers: Record<string, HeaderValue>;
  /** The JSON body parsed with the route's body schema; `undefined` when the request had none. */
  body: Body;
  /**
   * The JSON body as the request sent it, before the route's body schema parsed it (no defaults
   * filled in, no transforms applied): for a partial update that must tell a field the caller
   * sent from one a default supplied. A `defineRoute` route's `handle` runs only once it has
   * passed the body schema. `undefined` when the request had none, or the route reads the raw
   * bytes itself.
   */
  sentBody: unknown;
  rawBody: Uint8Array;
}

export interface RouteResult {
  status: number;
  /**
   * The answer's body: for a JSON response (the default), any value, serialized; for a text or
   * binary response (a `contentType` neither JSON nor `text/event-stream`: see
   * `response-kind.ts`), a string or a `Uint8Array`, sent as it is.
   */
  body?: unknown;
  /**
   * More headers for a text or binary answer (`content-disposition`, ...), names in lower case.
   * Its `content-type` is the one its response declares.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * A Server-Sent Events answer instead of a JSON body: the handler writes each message as it
   * comes, with heartbeat comments while idle, until the client goes away (then the iterator's
   * `return()` is called, and must settle at once: see {@link HttpResponse.stream}).
   */
  events?: AsyncIterable<ServerSentEvent>;
}

/** One Server-Sent Events message. */
export interface ServerSentEvent {
  /** `id:`, what a client sends back as `Last-Event-ID` when it reconnects. */
  id?: string;
  /** `event:`, the message's type. */
  event?: string;
  /** `data:`; a multi-line value is sent as several `data:` lines. */
  data: string;
}

export interface RouteResponseDoc {
  description: string;
  /** The JSON body's schema (or a stream's events'); a text or binary answer needs none. */
  schema?: z.ZodType;
  /**
   * The answer's media type; default `application/json`. Its kind decides what the route answers
   * (see `response-kind.ts`): JSON (`application/json`, `application/*+json`) a value its
   * `schema` describes; `text/event-stream` a stream of events; any other `text/*` type a
   * string (sent as UTF-8); anything else (`application/zip`, ...) bytes. Declare it as a
   * literal so the route's types follow it.
   */
  contentType?: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/**
 * One endpoint declared without `defineRoute`: its context is untyped (`params` a record,
 * `query` the raw `URLSearchParams`, `body` the parsed JSON unvalidated) and it is left out of
 * `ApiRoutes`. The handler serves it as before: it checks the path parameters and the body's
 * size, type and JSON, and validates nothing against `query` or `body.schema` (which only
 * document it). Prefer `defineRoute`.
 */
export interface RouteDefinition {
  method: HttpMethod;
  /** Path with `{name}` parameters, e.g. `/api/keys/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Whether the route needs credentials (default true). */
  auth?: boolean;
  /** Only routes made by `defineRoute` have one. */
  credential?: never;
  /** The least role a caller needs (see `defineRoute`'s `role`). */
  role?: Role;
  /**
   * The `{id}` parameter names a conversation whose sandbox session key also authenticates (as
   * the OpenHands agent-server's `X-Session-API-Key`), for that conversation only.
   */
  conversationKey?: boolean;
  /** The JSON body, if the route takes one. `required: false` accepts an empty body. */
  body?: { schema: z.ZodType; required: boolean };
  query?: z.ZodType;
  /** Largest body accepted, in bytes; defaults to the handler's `maxBodyBytes`. */
  maxBodyBytes?: number;
  /**
   * The route reads the raw bytes itself (inbound events): no JSON parsing and no size check by
   * the handler, so the route can answer in its own order (404 unknown source before 413).
   */
  rawBody?: boolean;
  responses: Record<number, RouteResponseDoc>;
  handle(context: RouteContext): Promise<RouteResult>;
  /**
   * What to answer instead when the result's body cannot be serialized (`JSON.stringify`
   * throws: a stored value nested too deep). Without it such an answer is a logged 500.
   */
  unserializable?(body: unknown): unknown;
}
