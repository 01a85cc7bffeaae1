/**
 * The OpenAPI 3.1 document, generated from the route table and its zod schemas (zod's own JSON
 * Schema output is 2020-12, which OpenAPI 3.1 uses as is). Request and response schemas are
 * named components (`#/components/schemas/Name`, see `schema-names.ts`): each appears once, and
 * operations refer to them by `$ref`.
 * @module
 */
import { z } from 'zod';
import { credentialOf, type AnyRoute, type Credential } from '../routing/define-route.js';
import { responseKind } from '../routing/response-kind.js';
import { isSchemaNameTaken, namedSchemas, schemaName } from './schema-names.js';
import type { RouteResponseDoc } from '../exchange/types.js';

export interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
}

type JsonObject = Record<string, unknown>;
type Direction = 'input' | 'output';

const COMPONENTS = '#/components/schemas/';
const ref = (name: string): JsonObject => ({ $ref: `${COMPONENTS}${name}` });
/** Ids of schemas that are not components themselves (query schemas, expanded into parameters). */
const QUERY_PREFIX = '__query';

const pascal = (text: string): string => text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_whole, _separator, letter: string) => letter.toUpperCase());

/** The schemas a conversion needs, each with its id: named ones by name, the others named after their operation. */
class SchemaIds {
  readonly ids = new Map<z.ZodType, string>();
  private readonly used = new Set<string>();

  constructor() {
    for (const [schema, name] of namedSchemas()) this.set(schema, name);
  }

  /** The id of a top-level schema: its own name, else `fallback` (an operation's `...Request` / `...Response`). */
  idOf(schema: z.ZodType, fallback: string): string {
    const known = this.ids.get(schema) ?? schemaName(schema);
    if (known) return known;
    if (this.used.has(fallback) || isSchemaNameTaken(fallback))
      throw new Error(`Schema name "${fallback}" collides with another schema's: name one of them (nameSchema)`);
    this.set(schema, fallback);
    return fallback;
  }

  private set(schema: z.ZodType, id: string) {
    this.ids.set(schema, id);
    this.used.add(id);
  }
}

/** Every schema of `ids` converted in one pass, nested ids as `$ref`s. */
function convert(ids: SchemaIds, io: Direction): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of ids.ids) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `${COMPONENTS}${id}` });
  const result: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as JsonObject;
    result[id] = rest;
  }
  return result;
}

/** The component names `schema` refers to. */
function refsIn(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) refsIn(item, found);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)) found.add(value.slice(COMPONENTS.length));
      else refsIn(value, found);
    }
  }
  return found;
}

/** `roots` and every component they reach. */
function reachable(defs: Record<string, JsonObject>, roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...refsIn(defs[name]));
  }
  return seen;
}

/** `schema` with each `$ref` to a component renamed. */
function renameRefs<T>(schema: T, rename: (name: string) => string): T {
  if (Array.isArray(schema)) return schema.map((item) => renameRefs(item, rename)) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    result[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)
        ? `${COMPONENTS}${rename(value.slice(COMPONENTS.length))}`
        : renameRefs(value, rename);
  }
  return result as T;
}

/**
 * `components.schemas` from both conversions. A schema used both ways keeps one component when
 * its input and output JSON are the same (and so are those of everything it refers to); else
 * its input form is `NameInput`. Returns the components and the input ids' final names.
 */
function mergeDirections(
  output: Record<string, JsonObject>,
  outputRoots: Set<string>,
  input: Record<string, JsonObject>,
  inputRoots: Set<string>,
): { schemas: Record<string, JsonObject>; inputName: (id: string) => string } {
  const outputUsed = reachable(output, outputRoots);
  const inputUsed = reachable(input, inputRoots);
  const differs = new Map<string, boolean>();
  const differ = (name: string): boolean => {
    const known = differs.get(name);
    if (known !== undefined) return known;
    differs.set(name, false); // a cycle adds no difference of its own
    const result = JSON.stringify(input[name]) !== JSON.stringify(output[name]) || [...refsIn(input[name])].some(differ);
    differs.set(name, result);
    return result;
  };
  const inputName = (id: string): string => (outputUsed.has(id) && differ(id) ? `${id}Input` : id);
  const schemas: Record<string, JsonObject> = {};
  for (const name of outputUsed) schemas[name] = output[name] as JsonObject;
  for (const id of inputUsed) {
    if (id.startsWith(QUERY_PREFIX)) continue;
    const name = inputName(id);
    if (name === id && outputUsed.has(id)) continue;
    if (schemas[name]) throw new Error(`Schema name "${name}" is taken: rename the schema named "${id}"`);
    schemas[name] = renameRefs(input[id] as JsonObject, inputName);
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name] as JsonObject]),
  );
  return { schemas: sorted, inputName };
}

const pathParameters = (path: string): JsonObject[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));

/** Security requirements: the route's preferred key first; the server takes either. */
const SECURITY: Record<Credential, JsonObject[]> = {
  none: [],
  bearer: [{ bearer: [] }, { sessionApiKey: [] }],
  session: [{ sessionApiKey: [] }, { bearer: [] }],
};

/** The schema of a text or binary answer (see `response-kind.ts`): a string, or bytes (`format: binary`); `undefined` for JSON and streams. */
function contentSchema(doc: RouteResponseDoc): JsonObject | undefined {
  const kind = responseKind(doc);
  return kind === 'text' ? { type: 'string' } : kind === 'binary' ? { type: 'string', format: 'binary' } : undefined;
}

export function buildOpenApiDocument(routes: readonly AnyRoute[], info: OpenApiInfo = {}): Record<string, unknown> {
  // Every schema the document shows, by direction: what the API answers, and what it accepts.
  const outputIds = new SchemaIds();
  const inputIds = new SchemaIds();
  const outputRoots = new Set<string>();
  const inputRoots = new Set<string>();
  const queryIds = new Map<z.ZodType, string>();
  const planned = routes.map((route) => {
    const responses: Record<string, string | undefined> = {};
    const successes = Object.keys(route.responses).filter((status) => status.startsWith('2'));
    for (const [status, doc] of Object.entries(route.responses)) {
      // A text or binary answer is described where it is used (a string, or bytes), not as a component.
      if (!doc.schema || contentSchema(doc)) continue;
      const suffix = successes.length > 1 ? `Response${status}` : 'Response';
      const id = outputIds.idOf(doc.schema, `${pascal(route.operationId)}${suffix}`);
      outputRoots.add(id);
      responses[status] = id;
    }
    const body = route.body && !route.rawBody ? inputIds.idOf(route.body.schema, `${pascal(route.operationId)}Request`) : undefined;
    if (body) inputRoots.add(body);
    let query: string | undefined;
    if (route.query) {
      // A named query schema keeps its component; any other is only expanded into parameters.
      query = inputIds.ids.get(route.query) ?? queryIds.get(route.query) ?? `${QUERY_PREFIX}${queryIds.size}`;
      if (!inputIds.ids.has(route.query)) {
        queryIds.set(route.query, query);
        inputIds.ids.set(route.query, query);
      }
      inputRoots.add(query);
    }
    return { route, responses, body, query };
  });
  const input = convert(inputIds, 'input');
  const { schemas, inputName } = mergeDirections(convert(outputIds, 'output'), outputRoots, input, inputRoots);

  const paths: Record<string, JsonObject> = {};
  for (const { route, responses: responseIds, body, query } of planned) {
    const responses: JsonObject = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      const id = responseIds[status];
      const content = contentSchema(doc);
      if (content) responses[status] = { description: doc.description, content: { [doc.contentType as string]: { schema: content } } };
      else
        responses[status] = id
          ? { description: doc.description, content: { [doc.contentType ?? 'application/json']: { schema: ref(id) } } }
          : { description: doc.description };
    }
    const queryJson = query ? (renameRefs(input[query], inputName) as { properties?: Record<string, JsonObject>; required?: string[] }) : undefined;
    const queryParameters = Object.entries(queryJson?.properties ?? {}).map(([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      required: queryJson?.required?.includes(name) ?? false,
      ...(typeof description === 'string' ? { description } : {}),
      schema,
      // `?ids=a&ids=b`, OpenAPI's default for a query array.
      ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
    }));
    const needs = credentialOf(route) === 'none' ? null : (route.role ?? 'owner');
    // The role a key needs: said in words (for readers), as an extension (for tools), and its 403.
    if (needs && !responses['403']) responses['403'] = { description: `The key's role is weaker than ${needs}` };
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      ...(needs ? { description: `Needs the ${needs} role.`, 'x-required-role': needs } : {}),
      tags: [route.tag],
      security: SECURITY[credentialOf(route)],
      parameters: [...pathParameters(route.path), ...queryParameters],
      responses,
    };
    if (body && route.body) {
      operation.requestBody = { required: route.body.required, content: { 'application/json': { schema: ref(inputName(body)) } } };
    }
    let pathItem = paths[route.path];
    if (pathItem === undefined) {
      pathItem = {};
      paths[route.path] = pathItem;
    }
    pathItem[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'agent-platform',
      version: info.version ?? '0.1.0',
      ...(info.description ? { description: info.description } : {}),
    },
    components: {
      schemas,
      securitySchemes: {
        sessionApiKey: { type: 'apiKey', in: 'header', name: 'X-Session-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    security: [{ sessionApiKey: [] }, { bearer: [] }],
    paths,
  };
}
