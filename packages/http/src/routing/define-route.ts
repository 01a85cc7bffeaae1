/**
 * `defineRoute`: one endpoint, declared once, typed end to end. The route's method, path,
 * `operationId`, credential and zod schemas keep their literal types, so that
 * - its `handle` gets `params`, `query` and `body` already validated and typed (the handler
 *   parses them with the declared schemas before calling it: see `handler.ts`);
 * - what `handle` answers is checked against the route's declared success response: a value of
 *   its schema for JSON; a `string` for a `text/*` `contentType`, a `Uint8Array` for any other
 *   non-JSON one (`application/zip`), sent as they are with that content type and the result's
 *   `headers` (see `response-kind.ts`);
 * - {@link ApiRoutesOf} derives, from the route arrays, the table a typed client is built on
 *   (`ApiRoutes` in `route-table.ts`), each entry with the role its caller needs.
 *
 * @example
 * ```ts
 * export const thingRoutes = [
 *   defineRoute({
 *     method: 'GET',
 *     path: '/api/things/{id}',
 *     operationId: 'getThing',
 *     summary: 'One thing',
 *     tag: 'things',
 *     query: z.object({ verbose: z.coerce.boolean().optional() }),
 *     responses: { 200: { description: 'The thing', schema: thingSchema }, 401: unauthorized, 404: notFoundDoc },
 *     // params: { id: string }; query: { verbose?: boolean }
 *     async handle({ platform, principal, params, query }) {
 *       return { status: 200, body: await platform.things.get(principal, params.id, query) };
 *     },
 *   }),
 * ] as const;
 * ```
 * @module
 */
import type { z } from 'zod';
import type { Role } from '@agent-platform/core';
import type { ResponseKindOf } from './response-kind.js';
import type { HttpMethod, RouteContext, RouteDefinition, RouteResponseDoc, RouteResult, ServerSentEvent } from '../exchange/types.js';

/**
 * Which credential a client sends to the route: `bearer` (`Authorization: Bearer`, the default),
 * `session` (`X-Session-API-Key`: settings and provider tokens) or `none`
 * (health, readiness, the OpenAPI document, inbound events). The server takes either key header
 * on every route that needs one; this says which one a client should prefer.
 */
export type Credential = 'bearer' | 'session' | 'none';

/** A schema for the query string or the path parameters: an object of named fields. */
export type FieldsSchema = z.ZodObject;

/** A route's JSON body: its schema, and whether a request must send one. */
export interface RouteBody {
  readonly schema: z.ZodType;
  /** `false` accepts an empty body: `handle` then gets `undefined`. */
  readonly required: boolean;
}

/** A route's answers by status code, as documented in OpenAPI. */
export type RouteResponses = { readonly [status: number]: RouteResponseDoc };

/** The statuses an answer succeeds with: a route's one 2xx entry in `responses` is its success. */
export type SuccessStatus = 200 | 201 | 202 | 204;

/** The names of `{name}` parameters in a path template. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

/** `'/a/{id}/runs/{run_id}'` → `{ id: string; run_id: string }`. */
export type PathParams<P extends string> = { [K in PathParamNames<P>]: string };

/** An object type with its members spelled out (for readable hovers and error messages). */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** What `handle` gets as `params`: the `params` schema's output, else a string per path parameter. */
export type ParamsOf<P extends string, PS> = PS extends FieldsSchema ? z.output<PS> : PathParams<P>;

/** What `handle` gets as `query`: the query schema's output, or nothing. */
export type QueryOf<Q> = Q extends z.ZodType ? z.output<Q> : Record<never, never>;

/** What `handle` gets as `body`: the body schema's output (`undefined` too when not required). */
export type BodyOf<B> = B extends RouteBody ? (B['required'] extends true ? z.output<B['schema']> : z.output<B['schema']> | undefined) : undefined;

/** The status of the route's success answer (its 2xx entry in `responses`). */
export type SuccessStatusOf<R> = Extract<keyof R, SuccessStatus>;

/** Whether a response entry is a Server-Sent Events stream. */
type IsStream<D> = ResponseKindOf<D> extends 'stream' ? true : false;

/** Headers a text or binary answer adds (`content-disposition`, ...), names in lower case. */
export type ContentHeaders = Readonly<Record<string, string>>;

/** The body `handle` answers for one documented success status: by the kind of its `contentType` (see `response-kind.ts`). */
type SuccessResultOf<S, D> =
  ResponseKindOf<D> extends 'stream'
    ? { status: S; events: AsyncIterable<ServerSentEvent>; body?: undefined; headers?: undefined }
    : ResponseKindOf<D> extends 'text'
      ? { status: S; body: string; headers?: ContentHeaders; events?: undefined }
      : ResponseKindOf<D> extends 'binary'
        ? { status: S; body: Uint8Array; headers?: ContentHeaders; events?: undefined }
        : D extends { readonly schema: infer Schema extends z.ZodType }
          ? { status: S; body: z.output<Schema>; events?: undefined; headers?: undefined }
          : { status: S; body?: undefined; events?: undefined; headers?: undefined };

/**
 * What `handle` may answer: a documented success with a body its doc describes (a value of its
 * schema; a string for a `text/*` answer; bytes for a binary one), or (rare: most failures are
 * thrown) another documented status with any body.
 */
export type RouteResultOf<R> =
  | { [S in SuccessStatusOf<R>]: SuccessResultOf<S, R[S]> }[SuccessStatusOf<R>]
  | { status: Exclude<keyof R, SuccessStatusOf<R>> & number; body?: unknown; events?: undefined; headers?: undefined };

/**
 * What a client gets for a binary answer (`application/zip`, ...): a `Blob` of the bytes (its
 * `type` the answer's content type), as `fetch`'s `response.blob()` reads it.
 */
export type BinaryResponse = Blob;

/** How a client reads a success answer: {@link ApiRouteEntry.responseType}. */
export type ResponseType = 'json' | 'text' | 'binary';

/** What a client reads one success answer as: its schema's output (each event's, for a stream), a string, a {@link BinaryResponse}, or `void` without a body. */
type ClientResponseOf<D> =
  ResponseKindOf<D> extends 'text'
    ? string
    : ResponseKindOf<D> extends 'binary'
      ? BinaryResponse
      : D extends { readonly schema: infer Schema extends z.ZodType }
        ? z.output<Schema>
        : // biome-ignore lint/suspicious/noConfusingVoidType: the client's methods for a route without a body resolve to Promise<void>; this is that return type, one step removed
          void;

/**
 * The type the route's success answer is read into by a client: its schema's output for JSON
 * (each event's, for a stream), `string` for text, {@link BinaryResponse} for bytes, `void`
 * when it has no body.
 */
export type ResponseOf<R> = [SuccessStatusOf<R>] extends [never] ? unknown : { [S in SuccessStatusOf<R>]: ClientResponseOf<R[S]> }[SuccessStatusOf<R>];

/** How a client reads the route's success answer: `text` and `binary` for those kinds, else `json` (a stream's events are JSON). */
export type ResponseTypeOf<R> = [SuccessStatusOf<R>] extends [never]
  ? 'json'
  : { [S in SuccessStatusOf<R>]: ResponseKindOf<R[S]> extends 'text' | 'binary' ? ResponseKindOf<R[S]> : 'json' }[SuccessStatusOf<R>];

/** The body `handle` answers with its success (what {@link RouteSpec.unserializable} gets): its schema's output, a string or bytes. */
export type SuccessBodyOf<R> = [SuccessStatusOf<R>] extends [never]
  ? unknown
  : { [S in SuccessStatusOf<R>]: SuccessResultOf<S, R[S]>['body'] }[SuccessStatusOf<R>];

/** The parts of a route every kind shares (the handler, the router and the OpenAPI document read these). */
interface RouteFields {
  readonly summary: string;
  readonly tag: string;
  /**
   * The least role a caller needs (`viewer` < `member` < `admin` < `owner`), for a route that
   * takes credentials: a weaker key gets a 403 naming both. Every such route declares one.
   */
  readonly role?: Role;
  /**
   * The `{id}` parameter names a conversation whose sandbox session key also authenticates (as
   * the OpenHands agent-server's `X-Session-API-Key`), for that conversation only.
   */
  readonly conversationKey?: boolean;
  /** Largest body accepted, in bytes; defaults to the handler's `maxBodyBytes`. */
  readonly maxBodyBytes?: number;
  /**
   * The route reads the raw bytes itself (inbound events): no JSON parsing, no body schema and
   * no size check by the handler, so the route can answer in its own order (404 unknown source
   * before 413).
   */
  readonly rawBody?: boolean;
}

/** What {@link defineRoute} takes. `handle` comes last: its context is typed from the properties before it. */
export interface RouteSpec<
  M extends HttpMethod,
  P extends string,
  O extends string,
  R extends RouteResponses,
  C extends Credential,
  PS extends FieldsSchema | undefined,
  Q extends FieldsSchema | undefined,
  B extends RouteBody | undefined,
  RO extends Role | undefined = Role | undefined,
> extends RouteFields {
  /**
   * The least role a caller needs (`viewer` < `member` < `admin` < `owner`), for a route that
   * takes credentials: a weaker key gets a 403 naming both. Every such route declares one.
   */
  readonly role?: RO;
  readonly method: M;
  /** Path with `{name}` parameters, e.g. `/api/keys/{id}`. */
  readonly path: P;
  readonly operationId: O;
  /** Which credential a client sends; default `bearer`. */
  readonly credential?: C;
  /**
   * Checks on the path parameters beyond the handler's own (decoded, no control characters, at
   * most 200 characters: anything else is a 404); failures are a 422 `loc: ["path", name]`.
   */
  readonly params?: PS;
  /**
   * The query string, as an object schema. A field whose schema is an array takes every value
   * of a repeated parameter (`?ids=a&ids=b`); any other field takes one, and a repeated one is
   * a 422. Failures are a 422 `loc: ["query", name]`.
   */
  readonly query?: Q;
  /** The JSON body, if the route takes one; failures are a 422 `loc: ["body", ...]`. */
  readonly body?: B;
  readonly responses: R;
  handle(context: RouteContext<ParamsOf<P, PS>, QueryOf<Q>, BodyOf<B>>): Promise<RouteResultOf<R>>;
  /**
   * What to answer instead when the result's body cannot be serialized (`JSON.stringify`
   * throws: a stored value nested too deep). Without it such an answer is a logged 500.
   */
  unserializable?(body: SuccessBodyOf<R>): unknown;
}

/** A route made by {@link defineRoute}, with every literal type of its declaration. */
export interface DefinedRoute<
  M extends HttpMethod = HttpMethod,
  P extends string = string,
  O extends string = string,
  R extends RouteResponses = RouteResponses,
  C extends Credential = Credential,
  PS extends FieldsSchema | undefined = FieldsSchema | undefined,
  Q extends FieldsSchema | undefined = FieldsSchema | undefined,
  B extends RouteBody | undefined = RouteBody | undefined,
  RO extends Role | undefined = Role | undefined,
> extends RouteFields {
  /** The least role a caller needs; `undefined` when the route declares none. */
  readonly role?: RO;
  readonly method: M;
  readonly path: P;
  readonly operationId: O;
  readonly credential: C;
  /**
   * `credential !== 'none'`.
   * @deprecated Read {@link DefinedRoute.credential}; kept for code written against the old `auth` flag.
   */
  readonly auth: boolean;
  readonly params: PS;
  readonly query: Q;
  readonly body: B;
  readonly responses: R;
  handle(context: RouteContext<ParamsOf<P, PS>, QueryOf<Q>, BodyOf<B>>): Promise<RouteResultOf<R>>;
  unserializable?(body: SuccessBodyOf<R>): unknown;
}

/** Any route made by {@link defineRoute}, its literal types forgotten: what the handler serves. */
export interface AnyDefinedRoute extends RouteFields {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId: string;
  readonly credential: Credential;
  /** @deprecated Read {@link AnyDefinedRoute.credential}. */
  readonly auth: boolean;
  readonly params: FieldsSchema | undefined;
  readonly query: FieldsSchema | undefined;
  readonly body: RouteBody | undefined;
  readonly responses: RouteResponses;
  // `any`: the erased form of every route's own context type (method parameters are bivariant).
  handle(context: RouteContext<unknown, unknown, unknown>): Promise<RouteResult>;
  unserializable?(body: unknown): unknown;
}

/** Every route the handler can serve: made by {@link defineRoute}, or an untyped {@link RouteDefinition}. */
export type AnyRoute = AnyDefinedRoute | RouteDefinition;

/** Whether the route was made by {@link defineRoute} (and so has its input validated by the handler). */
export const isDefinedRoute = (route: AnyRoute): route is AnyDefinedRoute => typeof (route as Partial<AnyDefinedRoute>).credential === 'string';

/** The credential a route wants, whichever way it was declared. */
export const credentialOf = (route: AnyRoute): Credential => (isDefinedRoute(route) ? route.credential : route.auth === false ? 'none' : 'bearer');

/**
 * Declares a route. Nothing needs annotating: the method, path, `operationId`, credential,
 * role and schemas are inferred as literals (a `const` type parameter each), and `handle`, placed
 * after them, gets its context typed from them.
 */
export function defineRoute<
  const M extends HttpMethod,
  const P extends string,
  const O extends string,
  const R extends RouteResponses,
  const C extends Credential = 'bearer',
  const PS extends FieldsSchema | undefined = undefined,
  const Q extends FieldsSchema | undefined = undefined,
  const B extends RouteBody | undefined = undefined,
  const RO extends Role | undefined = undefined,
>(spec: RouteSpec<M, P, O, R, C, PS, Q, B, RO>): DefinedRoute<M, P, O, R, C, PS, Q, B, RO> {
  const credential = (spec.credential ?? 'bearer') as C;
  return {
    ...spec,
    credential,
    auth: credential !== 'none',
    params: spec.params as PS,
    query: spec.query as Q,
    body: spec.body as B,
  };
}

/** One entry of {@link ApiRoutesOf}: what a client needs to call the route. */
export interface ApiRouteEntry<
  O extends string = string,
  C extends Credential = Credential,
  Params = unknown,
  Query = unknown,
  Body = unknown,
  BodyRequired extends boolean = boolean,
  Response = unknown,
  Streamed extends boolean = boolean,
  RT extends ResponseType = ResponseType,
  RO extends Role | undefined = Role | undefined,
> {
  operationId: O;
  credential: C;
  /**
   * The least role the caller's key needs (`viewer` < `member` < `admin` < `owner`): a weaker
   * key gets a 403 naming it. `undefined` for a route that takes no key (`credential: 'none'`).
   */
  role: RO;
  /** The path parameters, by name. */
  params: Params;
  /** The query parameters as a caller sends them (`z.input` of the query schema); `undefined` when the route takes none. */
  query: Query;
  /** The JSON body as a caller sends it (`z.input` of the body schema); `undefined` when the route takes none. */
  body: Body;
  /** Whether a request must send a body. */
  bodyRequired: BodyRequired;
  /**
   * The success answer as a client reads it: `z.output` of its schema (for a stream, each
   * event); `string` for a `text/*` answer; {@link BinaryResponse} (a `Blob`) for bytes; `void`
   * when it has no body.
   */
  response: Response;
  /**
   * How to read the success answer: `json` (parse it; a stream's events are JSON too), `text`
   * (`response.text()`: a file's text) or `binary` (`response.blob()`: a zip).
   */
  responseType: RT;
  /** Present on Server-Sent Events routes. */
  streamed?: Streamed;
}

type ApiQuery<Q> = Q extends z.ZodType ? z.input<Q> : undefined;
type ApiBody<B> = B extends RouteBody ? z.input<B['schema']> : undefined;
type ApiBodyRequired<B> = B extends RouteBody ? B['required'] : false;
/** The role a route's caller needs, as the handler checks it: none without a key, else its declared role (`owner` when it declares none). */
type ApiRole<T extends AnyTypedRoute> = T['credential'] extends 'none'
  ? undefined
  : [Exclude<T['role'], undefined>] extends [never]
    ? 'owner'
    : Exclude<T['role'], undefined>;
type IsStreamed<R> = true extends { [S in SuccessStatusOf<R>]: IsStream<R[S]> }[SuccessStatusOf<R>] ? true : false;

type ApiEntryOf<T extends AnyTypedRoute> = Simplify<
  {
    operationId: T['operationId'];
    credential: T['credential'];
    role: ApiRole<T>;
    params: Simplify<ParamsOf<T['path'], T['params']>>;
    query: ApiQuery<T['query']>;
    body: ApiBody<T['body']>;
    bodyRequired: ApiBodyRequired<T['body']>;
    response: ResponseOf<T['responses']>;
    responseType: ResponseTypeOf<T['responses']>;
  } & (IsStreamed<T['responses']> extends true ? { streamed: true } : unknown)
>;

/**
 * The route table as a type, from the routes' own declarations: keyed by
 * `` `${method} ${path}` `` (`'GET /api/automation/v1/runs/{run_id}'`), each entry an
 * {@link ApiRouteEntry}. Untyped {@link RouteDefinition}s are left out.
 */
export type ApiRoutesOf<T> = {
  [K in Extract<T, AnyTypedRoute> as `${K['method']} ${K['path']}`]: ApiEntryOf<K>;
};

/** Any {@link DefinedRoute}, whatever its type arguments. */
// biome-ignore lint/suspicious/noExplicitAny: matches a route whatever its literal type arguments; no other type argument does (the defaults, or unknown, fail the constraints or the variance of handle, and routes would silently drop out of ApiRoutes)
type AnyTypedRoute = DefinedRoute<any, any, any, any, any, any, any, any, any>;
