/**
 * GitHub's published OpenAPI description (`@octokit/openapi`, the api.github.com document) loaded
 * once per process, its operations indexed by method and path template, and ajv validators
 * compiled on demand (and cached) for parameters, request bodies and responses — so the stand-in
 * checks what it is sent and what it answers against GitHub's own shapes, not ours.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The `$id` the whole document is registered under; validators are JSON pointers into it. */
const DOCUMENT_ID = 'https://api.github.com/openapi.json';

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** JSON pointer (`#/…`) to the parameter's schema. */
  schema: string;
  /** The schema's `type`, for turning the text of a path or query string into a value. */
  type: string | string[] | undefined;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/repos/{owner}/{repo}/issues/{issue_number}/comments`. */
  template: string;
  parameters: OperationParameter[];
  /** The `application/json` request body: pointer to its schema, `null` when the operation takes none. */
  body: { required: boolean; schema: string } | null;
  /** Documented statuses → pointer to the `application/json` schema (`null`: no JSON content). */
  responses: Record<string, string | null>;
}

export interface RouteMatch {
  operation: Operation;
  /** Path parameters as they appeared in the path (decoded). */
  params: Record<string, string>;
}

export interface OpenApiDescription {
  /** The operation answering `method` at `path` (relative to the API root), or `null`. */
  match(method: string, path: string): RouteMatch | null;
  /** Validates `value` against the schema at `pointer`; the list of problems, empty when it conforms. */
  check(pointer: string, value: unknown): string[];
  /** Milliseconds it took to read, prepare and index the description (once per process). */
  loadMs: number;
}

type Json = Record<string, unknown>;

interface Route {
  operation: Operation;
  pattern: RegExp;
  names: string[];
  /** Literal segments score higher: `/issues/comments` wins over `/issues/{issue_number}`. */
  rank: number[];
}

/** `"#/components/schemas/x"` → the value there. */
function at(document: Json, pointer: string): unknown {
  let value: unknown = document;
  for (const part of pointer.replace(/^#\//, '').split('/')) {
    value = (value as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows `$ref`s (parameters, request bodies and responses are often references) to the object. */
function follow(document: Json, pointer: string): { pointer: string; value: Json } {
  let current = pointer;
  for (let hops = 0; hops < 10; hops++) {
    const value = at(document, current) as Json;
    if (typeof value?.$ref !== 'string') return { pointer: current, value };
    current = value.$ref;
  }
  throw new Error(`reference loop at ${pointer}`);
}

/**
 * OpenAPI 3.0's `nullable: true` rewritten as JSON Schema: ajv's own `nullable` support refuses
 * a `nullable` without a `type` beside it (GitHub has those, next to `allOf`/`anyOf`), and an
 * `enum` must list `null` itself. Done once, in place, over the parsed document.
 */
function rewriteNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteNullable(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as Json;
  for (const value of Object.values(object)) rewriteNullable(value);
  if (!('nullable' in object) || typeof object.nullable !== 'boolean') return;
  const nullable = object.nullable;
  delete object.nullable;
  if (!nullable) return;
  if (typeof object.type === 'string') {
    object.type = [object.type, 'null'];
    if (Array.isArray(object.enum) && !object.enum.includes(null)) object.enum = [...object.enum, null];
    return;
  }
  const rest = { ...object };
  for (const key of Object.keys(object)) delete object[key];
  object.anyOf = [rest, { type: 'null' }];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

function indexOperations(document: Json): Map<string, Route[]> {
  const routes = new Map<string, Route[]>();
  const paths = document.paths as Record<string, Json>;
  for (const [template, item] of Object.entries(paths)) {
    const itemPointer = `#/paths/${escapePointer(template)}`;
    for (const method of METHODS) {
      const raw = item[method] as Json | undefined;
      if (!raw) continue;
      const opPointer = `${itemPointer}/${method}`;
      const parameters: OperationParameter[] = [];
      const lists: [string, unknown][] = [
        [`${itemPointer}/parameters`, item.parameters],
        [`${opPointer}/parameters`, raw.parameters],
      ];
      for (const [listPointer, list] of lists) {
        if (!Array.isArray(list)) continue;
        list.forEach((_, index) => {
          const { pointer, value } = follow(document, `${listPointer}/${index}`);
          const schema = value.schema as Json | undefined;
          const named = { name: String(value.name), in: value.in as OperationParameter['in'], required: value.required === true };
          const type = schema?.type as OperationParameter['type'];
          const entry = { ...named, schema: `${pointer}/schema`, type };
          // An operation's own parameter replaces the path item's of the same name.
          const existing = parameters.findIndex((p) => p.name === entry.name && p.in === entry.in);
          if (existing >= 0) parameters[existing] = entry;
          else parameters.push(entry);
        });
      }
      let body: Operation['body'] = null;
      if (raw.requestBody) {
        const { pointer, value } = follow(document, `${opPointer}/requestBody`);
        const content = value.content as Json | undefined;
        if (content?.['application/json']) body = { required: value.required === true, schema: `${pointer}/content/application~1json/schema` };
      }
      const responses: Record<string, string | null> = {};
      for (const status of Object.keys((raw.responses as Json) ?? {})) {
        const { pointer, value } = follow(document, `${opPointer}/responses/${status}`);
        const content = value.content as Json | undefined;
        responses[status] = content?.['application/json'] ? `${pointer}/content/application~1json/schema` : null;
      }
      const operation: Operation = { operationId: String(raw.operationId), method: method.toUpperCase(), template, parameters, body, responses };
      const names: string[] = [];
      const segments = template.split('/').slice(1);
      const source = segments
        .map((segment) =>
          segment.replace(/\{([^}]+)\}|[^{]+/g, (whole, name: string | undefined) => {
            if (name === undefined) return whole.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
            names.push(name);
            return '([^/]+)';
          }),
        )
        .join('/');
      const rank = segments.map((segment) => (segment.includes('{') ? 0 : 1));
      const list = routes.get(operation.method) ?? [];
      list.push({ operation, pattern: new RegExp(`^/${source}$`), names, rank });
      routes.set(operation.method, list);
    }
  }
  for (const list of routes.values()) {
    list.sort((a, b) => {
      for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i++) if (a.rank[i] !== b.rank[i]) return (b.rank[i] ?? 0) - (a.rank[i] ?? 0);
      return b.rank.length - a.rank.length;
    });
  }
  return routes;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String(error.params.additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify(error.params.allowedValues)})`
        : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

function load(): OpenApiDescription {
  const started = performance.now();
  // The package's own entry would parse every generated document (hundreds of MB); read one file.
  // The CommonJS build gets `import.meta.url` from tsup's shims.
  const root = dirname(createRequire(import.meta.url).resolve('@octokit/openapi/package.json'));
  const document = JSON.parse(readFileSync(join(root, 'generated', 'api.github.com.json'), 'utf8')) as Json;
  // Webhook payloads are not part of the REST API and make up a good share of the document.
  delete document['x-webhooks'];
  rewriteNullable(document);
  const routes = indexOperations(document);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, unicodeRegExp: false, logger: false });
  addFormats(ajv);
  // Formats OpenAPI names that JSON Schema has no check for: accepted as they are.
  for (const name of ['int32', 'int64', 'double', 'float', 'binary', 'byte', 'password', 'repo.nwo', 'timestamp']) ajv.addFormat(name, true);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  const validator = (pointer: string): ValidateFunction => {
    let validate = validators.get(pointer);
    if (!validate) {
      const fragment = pointer.replace(/^#/, '').split('/').map(encodeURIComponent).join('/');
      validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
      if (!validate) throw new Error(`no schema at ${pointer} in GitHub's OpenAPI description`);
      validators.set(pointer, validate);
    }
    return validate;
  };
  return {
    loadMs: performance.now() - started,
    match(method, path) {
      for (const route of routes.get(method.toUpperCase()) ?? []) {
        const found = route.pattern.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        route.names.forEach((name, index) => {
          params[name] = decodeURIComponent(found[index + 1] ?? '');
        });
        return { operation: route.operation, params };
      }
      return null;
    },
    check(pointer, value) {
      const validate = validator(pointer);
      return validate(value) ? [] : (validate.errors ?? []).map(describeError);
    },
  };
}

let description: OpenApiDescription | null = null;

/** The description, read and indexed on first use and kept for the life of the process. */
export function openApiDescription(): OpenApiDescription {
  description ??= load();
  return description;
}

/** A path or query string turned into the value its schema's `type` names, so ajv can judge it. */
export function coerceParameter(text: string, type: OperationParameter['type']): unknown {
  const types = Array.isArray(type) ? type : [type];
  if ((types.includes('integer') && /^-?\d+$/.test(text)) || (types.includes('number') && text.trim() !== '' && Number.isFinite(Number(text))))
    return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.includes('array')) return text.split(',');
  return text;
}
