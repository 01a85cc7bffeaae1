/**
 * The server's own OpenAPI document as fuzzing input: its operations (method, path template,
 * parameters, JSON body schema), and fast-check arbitraries of values valid for a JSON Schema
 * (the subset the document uses: type, anyOf, enum, const, properties, required, items,
 * additionalProperties, propertyNames, pattern, min/max).
 * @module
 */
import fc from 'fast-check';
import { longWithin } from './grammars.js';

/** Values to mix in for properties of a given name (grammar-based values for the fields the server parses). */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

export interface Operation {
  method: string;
  /** `/api/automation/v1/{id}` */
  path: string;
  operationId: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  bodyRequired: boolean;
  /** Whether the document lists a security requirement (the API key). */
  authenticated: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * `schema` with each `$ref` to `#/components/schemas/...` replaced by the schema it names (the
 * document names its request and response schemas); a reference met again inside itself (a
 * recursive schema) becomes `{}`, any value.
 */
export function inlineRefs(schema: unknown, document: any, seen: readonly string[] = []): any {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, document, seen));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    const target = document.components?.schemas?.[name];
    return target && !seen.includes(name) ? inlineRefs(target, document, [...seen, name]) : {};
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlineRefs(value, document, seen)]));
}

export function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  const globalSecurity = Array.isArray(document.security) && document.security.length > 0;
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const json = inlineRefs(op.requestBody?.content?.['application/json']?.schema ?? null, document);
      const security = op.security ?? (globalSecurity ? document.security : []);
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId ?? `${method} ${path}`,
        parameters: inlineRefs([...(item.parameters ?? []), ...(op.parameters ?? [])], document),
        body: json,
        bodyRequired: op.requestBody?.required === true,
        authenticated: Array.isArray(security) && security.length > 0,
      });
    }
  }
  return operations;
}

/** Cap on generated sizes: the point is shape, not bulk (bulk comes from the hostile mutations). */
const SMALL = 6;

/** Values that satisfy `schema` (as far as the subset allows: a pattern is honoured, formats are not). */
export function valueFor(schema: JsonSchema | undefined, depth = 0, hints: Hints = {}): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object') return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => valueFor(alternative, depth, hints)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => valueFor({ ...schema, type }, depth, hints)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER);
      const max = Math.min(schema.maximum ?? 1000, Number.MAX_SAFE_INTEGER);
      return fc.oneof(fc.integer({ min, max: Math.min(max, min + 100) }), fc.constantFrom(min, max));
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringOf(schema);
    case 'array':
      return fc.array(valueFor(schema.items, depth + 1, hints), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? SMALL, SMALL)),
      });
    case 'object':
      return objectOf(schema, depth, hints);
    default:
      return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 30, 30));
  if (schema.pattern) {
    const fits = (value: string) => value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity);
    return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  }
  const short = fc.string({ minLength, maxLength });
  // Long but allowed: passes validation, so it reaches storage, parsers and error messages.
  const limit = schema.maxLength ?? 100_000;
  return limit > 200 ? fc.oneof({ weight: 5, arbitrary: short }, { weight: 1, arbitrary: longWithin(limit) }) : short;
}

function objectOf(schema: JsonSchema, depth: number, hints: Hints): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const property = (name: string, propertySchema: JsonSchema) => {
    const valid = valueFor(propertySchema, depth + 1, hints);
    const hint = Object.hasOwn(hints, name) ? hints[name] : undefined;
    return hint ? fc.oneof({ weight: 3, arbitrary: hint }, { weight: 1, arbitrary: valid }) : valid;
  };
  const known = fc.record(Object.fromEntries(Object.entries(properties).map(([name, propertySchema]) => [name, property(name, propertySchema)])), {
    requiredKeys: [...required].filter((name) => name in properties),
  });
  const extra = schema.additionalProperties;
  if (!extra || extra === true || depth > 3) return known as fc.Arbitrary<Record<string, unknown>>;
  const keys = schema.propertyNames ? (valueFor(schema.propertyNames, depth + 1, hints) as fc.Arbitrary<string>) : fc.string({ maxLength: 12 });
  const more = fc.dictionary(
    keys.filter((key) => typeof key === 'string' && !(key in properties)),
    valueFor(extra, depth + 1, hints),
    { maxKeys: 3 },
  );
  return fc.tuple(known, more).map(([a, b]) => ({ ...b, ...a }));
}

/** Replace `{name}` in a path template; values are already encoded for the wire. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => values[name] ?? name);
}
