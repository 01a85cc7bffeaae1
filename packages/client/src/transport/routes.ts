/**
 * The API's endpoints as types, read from the server's own route table: `ApiRoutes` of
 * `@agent-platform/http`, imported with `import type` only, so nothing of the server is in the
 * client at run time; the build writes the table into the client's declarations in place of
 * this import (`scripts/inline-route-table.mjs`), so none of it is installed with the client
 * either. An endpoint added on the server is callable here (`client.request`) with its types,
 * and no edit to the client.
 *
 * Every endpoint is named by its key, `` `${METHOD} ${path}` `` as the server declares it
 * (`'GET /api/automation/v1/runs/{run_id}'`); at run time that string is all the client needs,
 * the method and the path template being its two halves.
 * @module
 */
import type { ApiRoutes, Credential, RouteKey } from '@agent-platform/http';
import type { CallOptions } from './transport.js';

export type { ApiRoutes, RouteKey };

/**
 * Which credential header a call carries: `bearer` (`Authorization: Bearer`, the default),
 * `session` (`X-Session-API-Key`: settings and provider tokens) or
 * `none` (health, readiness, the OpenAPI document, inbound events). The route table says which.
 */
export type CredentialScheme = Credential;

/** The endpoints that answer a Server-Sent Events stream (read with `conversations.stream`). */
export type StreamRouteKey = { [K in RouteKey]: ApiRoutes[K] extends { streamed: true } ? K : never }[RouteKey];

/** Every endpoint `client.request` can call: all but the streamed ones (JSON, text or binary answers). */
export type RequestRouteKey = Exclude<RouteKey, StreamRouteKey>;

/**
 * How an endpoint's success answer is read, as the route table declares it: `json` (parsed),
 * `text` (a `string`: a file's text) or `binary` (a `Blob`: a zip).
 */
export type RouteResponseType<K extends RouteKey> = ApiRoutes[K]['responseType'];

/** The endpoints that answer JSON (or nothing), streams aside. */
export type JsonRouteKey = { [K in RequestRouteKey]: RouteResponseType<K> extends 'json' ? K : never }[RequestRouteKey];

/** The endpoints that answer text (`text/*`): `client.request` answers a `string`. */
export type TextRouteKey = { [K in RequestRouteKey]: RouteResponseType<K> extends 'text' ? K : never }[RequestRouteKey];

/** The endpoints that answer bytes (`application/zip`, ...): `client.request` answers a `Blob`. */
export type BinaryRouteKey = { [K in RequestRouteKey]: RouteResponseType<K> extends 'binary' ? K : never }[RequestRouteKey];

/**
 * The least role the caller's key needs for an endpoint (`viewer` < `member` < `admin` <
 * `owner`), as the route table declares it: a weaker key gets a 403 naming it. `undefined` for
 * an endpoint that takes no key (health, inbound events).
 *
 * @example
 * ```ts
 * type NeedsOwner = RouteRole<'PUT /api/automation/v1/budgets'>; // 'owner'
 * ```
 */
export type RouteRole<K extends RouteKey> = ApiRoutes[K]['role'];

/** The path parameters of an endpoint, by name (`{ run_id: string }`); `{}` for a path without any. */
export type RouteParams<K extends RouteKey> = ApiRoutes[K]['params'];

/**
 * One query value as the client sends it. A field whose schema coerces the query text
 * (`z.coerce.number()`: `limit`, `offset`) has `unknown` as its input type; it is sent as text
 * anyway, so it takes a number, a string or a boolean, and the server validates it. Arrays are
 * sent as a repeated parameter (`?ids=a&ids=b`) and may be read-only.
 */
type QueryField<T> = unknown extends T ? string | number | boolean | null | undefined : T extends readonly (infer Item)[] ? readonly Item[] : T;

/** The query parameters of an endpoint as a caller sends them; `undefined` when it takes none. */
export type RouteQuery<K extends RouteKey> = ApiRoutes[K]['query'] extends infer Q extends object ? { [F in keyof Q]: QueryField<Q[F]> } : undefined;

/** The JSON body of an endpoint as a caller sends it (the schema's input type); `undefined` when it takes none. */
export type RouteBody<K extends RouteKey> = ApiRoutes[K]['body'];

/** What an endpoint answers: its success schema's output; `void` when it answers no body (204). */
export type RouteResponse<K extends RouteKey> = ApiRoutes[K]['response'];

type HasMembers<T> = [keyof T] extends [never] ? false : true;

type ParamsInit<K extends RouteKey> =
  HasMembers<RouteParams<K>> extends true
    ? {
        /** The path parameters: every one required. */
        params: RouteParams<K>;
      }
    : { params?: Record<string, never> };

type QueryInit<K extends RouteKey> = [RouteQuery<K>] extends [undefined]
  ? { query?: undefined }
  : // biome-ignore lint/complexity/noBannedTypes: `{} extends T` is the TypeScript test for "T has no required member"; `{}` is the empty object type on purpose
    {} extends RouteQuery<K>
    ? {
        /** The query parameters; `undefined` and `null` members are left out. */
        query?: RouteQuery<K>;
      }
    : { query: RouteQuery<K> };

type BodyInit<K extends RouteKey> = [RouteBody<K>] extends [undefined]
  ? {
      json?: undefined;
      /** The body, sent as is (inbound events: the signed bytes). Only for endpoints that read the raw body. */
      body?: Uint8Array | string;
    }
  : ApiRoutes[K]['bodyRequired'] extends true
    ? {
        /** The body, sent as JSON. */
        json: RouteBody<K>;
        body?: undefined;
      }
    : {
        /** The body, sent as JSON; this endpoint also takes none. */
        json?: RouteBody<K>;
        body?: undefined;
      };

type CredentialInit<K extends RouteKey> = ApiRoutes[K]['credential'] extends 'bearer'
  ? {
      /** The API key goes in `Authorization: Bearer` (the default). */
      credential?: 'bearer';
    }
  : {
      /**
       * The credential this endpoint takes, as the route table says: `session` (the key goes in
       * `X-Session-API-Key`) or `none` (no key is sent). Saying so is required, and a wrong one
       * is a compile error, so a call never sends a key where none belongs.
       */
      credential: ApiRoutes[K]['credential'];
    };

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * What a call to endpoint `K` takes besides per-call options: `params` (required when the path
 * has any), `query`, `json` (required when the endpoint requires a body) or a raw `body`,
 * `credential` (required, and checked, when the endpoint wants `session` or `none`) and extra
 * `headers`.
 */
export type RouteInit<K extends RouteKey> = Simplify<
  ParamsInit<K> &
    QueryInit<K> &
    BodyInit<K> &
    CredentialInit<K> & {
      /** Extra request headers for this call. */
      headers?: Record<string, string>;
    }
>;

/** The arguments after the key: the init (optional when nothing in it is required), then the options. */
export type RouteArgs<K extends RouteKey> =
  // biome-ignore lint/complexity/noBannedTypes: `{} extends T` is the TypeScript test for "T has no required member"; `{}` is the empty object type on purpose
  {} extends RouteInit<K> ? [init?: RouteInit<K>, options?: CallOptions] : [init: RouteInit<K>, options?: CallOptions];

/** The path parameters alone (for the URL of an endpoint): required when the path has any. */
export type RouteParamsArgs<K extends RouteKey> = HasMembers<RouteParams<K>> extends true ? [params: RouteParams<K>] : [params?: Record<string, never>];

/** `'GET /api/keys/{id}'` → `{ method: 'GET', path: '/api/keys/{id}' }`: the key is the method, a space, the path. */
export function splitRouteKey(key: string): { method: string; path: string } {
  const space = key.indexOf(' ');
  if (space <= 0 || key[space + 1] !== '/') throw new TypeError(`Not an endpoint key (METHOD /path): ${JSON.stringify(key)}`);
  return { method: key.slice(0, space), path: key.slice(space + 1) };
}
