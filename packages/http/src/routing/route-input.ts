/**
 * A `defineRoute` route's input, validated with its declared schemas before `handle` runs: the
 * path parameters (already decoded and checked by `request-checks.ts`), the query string and
 * the JSON body. Every failure is a 422 in the FastAPI shape `parseInput` produces, the issues of
 * all three parts in one answer.
 * @module
 */
import { MAX_REPORTED_ISSUES, PlatformError, parseInput, type LocRoot, type ValidationIssue } from '@agent-platform/core';
import type { z } from 'zod';
import type { AnyDefinedRoute, FieldsSchema } from './define-route.js';

export interface RouteInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** The wrappers whose inner schema decides whether a field is an array. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Whether a field's schema takes an array (then a repeated query parameter gives all its values). */
function isArrayField(schema: z.core.$ZodType | undefined): boolean {
  for (let current = schema, hops = 0; current && hops < 20; hops++) {
    const def = current._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType; in?: z.core.$ZodType; getter?: () => z.core.$ZodType };
    if (def.type === 'array' || def.type === 'tuple') return true;
    if (WRAPPERS.has(def.type)) current = def.innerType;
    else if (def.type === 'pipe') current = def.in;
    else if (def.type === 'lazy') current = def.getter?.();
    else return false;
  }
  return false;
}

const arrayFieldsCache = new WeakMap<FieldsSchema, ReadonlySet<string>>();

function arrayFields(schema: FieldsSchema): ReadonlySet<string> {
  let fields = arrayFieldsCache.get(schema);
  if (!fields) {
    fields = new Set(
      Object.entries(schema.shape)
        .filter(([, field]) => isArrayField(field as z.core.$ZodType))
        .map(([name]) => name),
    );
    arrayFieldsCache.set(schema, fields);
  }
  return fields;
}

/**
 * The query string as the object the schema parses: a field whose schema is an array gets every
 * value of its parameter, any other one value (a parameter the schema does not name keeps its
 * last value, as `Object.fromEntries` would). A repeated parameter for a single-valued field is
 * an issue.
 */
function queryObject(schema: FieldsSchema, query: URLSearchParams, issues: ValidationIssue[]): Record<string, unknown> {
  const arrays = arrayFields(schema);
  const entries: [string, unknown][] = [];
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    if (arrays.has(name)) entries.push([name, values]);
    else {
      if (values.length > 1 && Object.hasOwn(schema.shape, name)) {
        issues.push({ loc: ['query', name], msg: `Send this parameter once (it was sent ${values.length} times)`, type: 'value_error' });
      }
      entries.push([name, values[values.length - 1]]);
    }
  }
  // fromEntries defines each key as an own property: `__proto__` stays a plain key.
  return Object.fromEntries(entries);
}

/** `parseInput`, its issues collected instead of thrown. */
function collect<S extends z.ZodType>(schema: S, input: unknown, root: LocRoot, issues: ValidationIssue[]): z.output<S> | undefined {
  try {
    return parseInput(schema, input, root);
  } catch (error) {
    if (error instanceof PlatformError && error.issues) {
      issues.push(...error.issues);
      return undefined;
    }
    throw error;
  }
}

/**
 * The route's `params`, `query` and `body` parsed with its schemas, or one 422 listing the
 * issues of all three (path first, then query, then body; at most {@link MAX_REPORTED_ISSUES}).
 * `body` is `undefined` (not parsed) when the request sent none; the handler has already
 * refused a missing body the route requires.
 */
export function parseRouteInput(route: AnyDefinedRoute, params: Record<string, string>, query: URLSearchParams, body: unknown): RouteInput {
  const issues: ValidationIssue[] = [];
  const parsedParams = route.params ? collect(route.params, params, 'path', issues) : params;
  const parsedQuery = route.query ? collect(route.query, queryObject(route.query, query, issues), 'query', issues) : {};
  const parsedBody = route.body && body !== undefined ? collect(route.body.schema, body, 'body', issues) : undefined;
  if (issues.length > 0) {
    const reported = issues.slice(0, MAX_REPORTED_ISSUES);
    throw new PlatformError('VALIDATION_FAILED', reported.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '), { issues: reported });
  }
  return { params: parsedParams, query: parsedQuery, body: parsedBody };
}
