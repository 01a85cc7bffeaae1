/**
 * What kind of body a documented response has, read from its `contentType`, at the type level
 * ({@link ResponseKindOf}: what `handle` answers, what a client reads) and at run time
 * ({@link responseKind}: how the handler sends it). The two follow the same rules:
 *
 * | `contentType` | kind | `handle` answers | sent as | a client reads |
 * |---|---|---|---|---|
 * | none, `application/json`, `application/*+json` | `json` | a value its `schema` describes | `JSON.stringify` | the parsed JSON |
 * | `text/event-stream` | `stream` | `events` | Server-Sent Events | each event |
 * | any other `text/*` | `text` | a `string` | UTF-8, `; charset=utf-8` added | a `string` |
 * | anything else (`application/zip`, ...) | `binary` | a `Uint8Array` | the bytes | a `Blob` |
 *
 * A text or binary answer may add headers (`content-disposition`: see {@link attachment}); its
 * `content-type` is the declared one.
 * @module
 */
import { isJsonContentType } from '../exchange/body.js';
import type { HttpResponse, RouteResponseDoc } from '../exchange/types.js';

export type ResponseKind = 'json' | 'stream' | 'text' | 'binary';

/** The media types a JSON answer may declare (as `isJsonContentType` takes them), parameters allowed. */
type JsonMediaType = 'application/json' | `application/json;${string}` | `application/${string}+json` | `application/${string}+json;${string}`;

/** The kind of a media type. A `string` that is not a literal (a doc typed `RouteResponseDoc`) counts as JSON. */
type KindOfMediaType<T extends string> = string extends T
  ? 'json'
  : T extends JsonMediaType
    ? 'json'
    : T extends 'text/event-stream' | `text/event-stream;${string}`
      ? 'stream'
      : T extends `text/${string}`
        ? 'text'
        : 'binary';

/** The kind of a response doc's body, from its `contentType` literal (JSON without one). */
export type ResponseKindOf<D> = D extends { readonly contentType: infer T extends string } ? KindOfMediaType<T> : 'json';

/** The bare media type, lower case: `Text/Plain; charset=utf-8` → `text/plain`. */
const mediaTypeOf = (contentType: string): string => (contentType.split(';')[0] ?? '').trim().toLowerCase();

/** The kind of a response doc's body (`json` without a doc or a `contentType`): {@link ResponseKindOf} at run time. */
export function responseKind(doc: RouteResponseDoc | undefined): ResponseKind {
  if (!doc?.contentType) return 'json';
  const mediaType = mediaTypeOf(doc.contentType);
  if (isJsonContentType(mediaType)) return 'json';
  if (mediaType === 'text/event-stream') return 'stream';
  if (mediaType.startsWith('text/')) return 'text';
  return 'binary';
}

/** The `content-type` a text or binary answer is sent with: the declared one, `; charset=utf-8` added to text without a charset. */
export function sentContentType(kind: 'text' | 'binary', contentType: string): string {
  return kind === 'text' && !/;\s*charset=/i.test(contentType) ? `${contentType}; charset=utf-8` : contentType;
}

/**
 * A text or binary answer as it goes on the wire: `body` unchanged (a string is sent as UTF-8),
 * with `contentType` (see `sentContentType`) and `headers` (names lower-cased; a
 * `content-type` among them is overridden). A body that is neither a string nor bytes is a
 * `TypeError` (the handler answers a logged 500).
 */
export function contentResponse(
  status: number,
  kind: 'text' | 'binary',
  contentType: string,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): HttpResponse {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(`A ${kind} answer (${contentType}) must be a string or a Uint8Array, not ${body === null ? 'null' : typeof body}`);
  }
  const extra = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { status, headers: { 'cache-control': 'no-store', ...extra, 'content-type': sentContentType(kind, contentType) }, body };
}

/** `content-disposition: attachment` with `filename` (kept to safe characters). */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9_.-]/g, '_')}"`;
}
