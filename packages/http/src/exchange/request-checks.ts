/**
 * Checks on the parts of a request that reach storage as they are: path parameters (ids) and
 * query values. Values no record can have are refused here, before any storage call: a path
 * id that cannot exist is a 404 like any unknown id, a query value with control characters a
 * 422.
 * @module
 */
import { PlatformError, validationError } from '@agent-platform/core';

/** The longest path parameter (an id, an org, a source) looked up; longer ones are a 404 at once. */
export const MAX_PATH_PARAM_LENGTH = 200;

/** The longest query parameter name echoed in a 422's `loc`. */
const MAX_ECHOED_NAME = 64;

/** C0 and C1 control characters, NUL included. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');
/** A UTF-16 surrogate without its pair: no id has one, and PostgreSQL cannot store it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What an id route answers for an id no record can have: the same 404 as for an unknown id. */
const NOT_FOUND_BY_COLLECTION: Record<string, string> = {
  keys: 'API key not found',
  webhooks: 'Webhook not found',
  events: 'Unknown or disabled webhook source',
  deliveries: 'Delivery not found',
  runs: 'Run not found',
  sandboxes: 'Sandbox not found',
  'app-conversations': 'Conversation not found',
  // `/api/v1/secrets/{name}` (the OpenHands custom secrets).
  secrets: 'Secret not found',
  // The agent-server subset, `/api/conversations/{id}/...`.
  conversations: 'Conversation not found',
  // `/api/automation/v1/{id}`: the only route whose parameter follows `v1`.
  v1: 'Automation not found',
  subscriptions: 'Subscription not found',
  // `/api/automation/v1/subscriptions/{subscription_id}/messages/{message_id}`.
  messages: 'Message not found',
  budgets: 'Budget not found',
  members: 'Member not found',
};

/**
 * The 404 detail of a route with path parameters: from the collection just before `param` when
 * it names one (a message id under its subscription's), else from the collection before the
 * route's first parameter.
 */
export function notFoundDetail(routePath: string, param?: string): string {
  const segments = routePath.split('/');
  const own = param === undefined ? -1 : segments.indexOf(`{${param}}`);
  const ownDetail = own > 0 ? NOT_FOUND_BY_COLLECTION[segments[own - 1] ?? ''] : undefined;
  if (ownDetail) return ownDetail;
  const first = segments.findIndex((segment) => segment.startsWith('{'));
  return NOT_FOUND_BY_COLLECTION[segments[first - 1] ?? ''] ?? 'Not Found';
}

/** Whether a decoded path parameter could name a record. */
export function isPlausibleParam(value: string): boolean {
  return value.length <= MAX_PATH_PARAM_LENGTH && !CONTROL.test(value) && !LONE_SURROGATE.test(value);
}

/**
 * Whether every parameter decodes. A malformed percent-encoding (`%FF`, `%E0%A4%A`, a UTF-8
 * surrogate) is answered like an unknown path, 404 `Not Found`, whatever the method and before
 * authentication: what Fastify's router answers for it (through `fastifyServerOptions`).
 */
export function paramsDecode(raw: Record<string, string>): boolean {
  for (const encoded of Object.values(raw)) {
    if (!encoded.includes('%')) continue;
    try {
      decodeURIComponent(encoded);
    } catch {
      return false;
    }
  }
  return true;
}

/** The route's parameters decoded, or a 404 with the route's own "not found" detail for an id no record can have. */
export function decodePathParams(routePath: string, raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, encoded] of Object.entries(raw)) {
    // Percent-encoding at most triples the length: longer cannot decode to an acceptable id.
    if (encoded.length > MAX_PATH_PARAM_LENGTH * 3) throw new PlatformError('NOT_FOUND', notFoundDetail(routePath, name));
    let decoded: string;
    try {
      decoded = decodeURIComponent(encoded);
    } catch {
      throw new PlatformError('NOT_FOUND', 'Not Found');
    }
    if (!isPlausibleParam(decoded)) throw new PlatformError('NOT_FOUND', notFoundDetail(routePath, name));
    params[name] = decoded;
  }
  return params;
}

/** 422 `loc: ["query", name]` for a query parameter whose name or value holds a control character. */
export function checkQuery(query: URLSearchParams): void {
  for (const [name, value] of query) {
    if (CONTROL.test(value) || CONTROL.test(name)) {
      // Shown without its control characters (each one U+FFFD): a name of NULs would otherwise
      // come back six times its length in JSON escapes, and terminals would act on the rest.
      const printable = name.replace(CONTROLS, '\uFFFD');
      const shown = printable.length > MAX_ECHOED_NAME ? `${printable.slice(0, MAX_ECHOED_NAME)}…` : printable;
      throw validationError(['query', shown], 'must not contain control characters', 'value_error');
    }
  }
}

/**
 * Splits a request target into path and query without `new URL` (which resolves `//host/...`
 * and `..` segments, and throws on some targets): the path is matched exactly as sent, the
 * way the framework routers match it. An absolute-form target keeps only its path and query.
 */
export function splitTarget(target: string): { path: string; query: URLSearchParams } | null {
  let rest = target;
  if (!rest.startsWith('/')) {
    if (!URL.canParse(rest)) return null;
    const url = new URL(rest);
    rest = url.pathname + url.search;
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const mark = rest.indexOf('?');
  return mark < 0 ? { path: rest, query: new URLSearchParams() } : { path: rest.slice(0, mark), query: new URLSearchParams(rest.slice(mark + 1)) };
}
