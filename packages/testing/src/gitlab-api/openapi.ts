/**
 * What the GitLab stand-in checks requests against: GitLab's REST description for the operations
 * the platform calls (`gitlab-openapi.json`, a trimmed copy of GitLab's `openapi_v2.yaml`, its
 * origin in its `info`) and, for the operations that document lacks, the same form written from
 * GitLab's REST documentation (`docs-operations.ts`). Operations are indexed by method and path
 * template; ajv validators for parameters and JSON bodies are compiled on demand.
 *
 * Read the way GitLab reads requests, where the document says less than GitLab does:
 * - a project's `{id}` is its numeric ID or its URL-encoded path (`acme%2Fapp`), as GitLab's
 *   documentation says of every project route — the document types some of them `integer`;
 * - a body property documented as an array of strings may be sent as one comma-separated string
 *   ("Comma-separated label names"), which GitLab splits before it validates;
 * - and, stricter than GitLab: a body property the operation does not document is a violation
 *   (GitLab drops it silently, which hides a misspelt parameter).
 *
 * Answers are not checked against the document: its entities type most numbers and booleans as
 * strings (a note's `id`, a merge request's `labels`), which GitLab's own documentation and its
 * answers contradict. The stand-in answers as GitLab's documentation shows.
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DOCS_OPERATIONS } from './docs-operations.js';
import vendored from './gitlab-openapi.json' with { type: 'json' };

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const DOCUMENT_ID = 'https://gitlab.com/api/v4/openapi.json';

type Json = Record<string, unknown>;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  /** Its schema (Swagger 2.0 writes it on the parameter: `type`, `enum`, `format`, `items`). */
  schema: Json;
  type: string | undefined;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v4/projects/{id}/issues/{noteable_id}/notes`. */
  template: string;
  parameters: OperationParameter[];
  /** The JSON body: pointer to its schema and the properties it documents (`null`: it takes none). */
  body: { required: boolean; schema: string; properties: Record<string, Json> } | null;
  /** Statuses the operation documents. */
  statuses: string[];
  /** Where the operation is described: GitLab's REST description, or its documentation. */
  source: 'gitlab-openapi' | 'gitlab-docs';
}

export interface RouteMatch {
  operation: Operation;
  /** Path parameters as they appeared in the path (decoded). */
  params: Record<string, string>;
}

export interface GitLabDescription {
  match(method: string, path: string): RouteMatch | null;
  /** Validates `value` against the schema at `pointer` (a JSON pointer into the document) or the schema given; the problems, empty when it conforms. */
  check(schema: string | Json, value: unknown): string[];
  /** Every operation, for tests that every one the stand-in simulates is described. */
  operations: Operation[];
}

interface Route {
  operation: Operation;
  pattern: RegExp;
  names: string[];
  rank: number[];
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

function at(document: Json, pointer: string): unknown {
  let value: unknown = document;
  for (const part of pointer.replace(/^#\//, '').split('/')) value = (value as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return value;
}

function indexOperations(document: Json, docsPaths: Set<string>): Route[] {
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const raw = item[method] as Json | undefined;
      if (!raw) continue;
      const pointer = `#/paths/${escapePointer(template)}/${method}`;
      const parameters: OperationParameter[] = [];
      let body: Operation['body'] = null;
      ((raw.parameters as Json[] | undefined) ?? []).forEach((parameter, index) => {
        const where = `${pointer}/parameters/${index}`;
        if (parameter.in === 'body') {
          const ref = String((parameter.schema as Json | undefined)?.$ref ?? '');
          const definition = (ref ? at(document, ref) : parameter.schema) as Json | undefined;
          body = { required: parameter.required === true, schema: `${where}/schema`, properties: (definition?.properties as Record<string, Json>) ?? {} };
        } else if (parameter.in === 'path' || parameter.in === 'query') {
          const { in: _in, name, required, description: _description, example: _example, default: _default, ...schema } = parameter;
          parameters.push({ name: String(name), in: parameter.in, required: required === true, schema, type: parameter.type as string | undefined });
        }
      });
      const operation: Operation = {
        operationId: String(raw.operationId),
        method: method.toUpperCase(),
        template,
        parameters,
        body,
        statuses: Object.keys((raw.responses as Json) ?? {}),
        source: docsPaths.has(`${method} ${template}`) ? 'gitlab-docs' : 'gitlab-openapi',
      };
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
      routes.push({ operation, pattern: new RegExp(`^/${source}$`), names, rank: segments.map((segment) => (segment.includes('{') ? 0 : 1)) });
    }
  }
  // Literal segments win: `/members/all/{user_id}` over `/members/{user_id}`.
  routes.sort((a, b) => {
    for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i++) if (a.rank[i] !== b.rank[i]) return (b.rank[i] ?? 0) - (a.rank[i] ?? 0);
    return b.rank.length - a.rank.length;
  });
  return routes;
}

/** A project's `{id}`: its ID or URL-encoded path, wherever the document types it. */
function projectIdsAreStrings(document: Json): void {
  for (const item of Object.values(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      for (const parameter of ((item[method] as Json | undefined)?.parameters as Json[] | undefined) ?? []) {
        if (parameter.in === 'path' && parameter.name === 'id') {
          parameter.type = 'string';
          delete parameter.format;
        }
      }
    }
  }
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra = error.keyword === 'enum' ? ` (${JSON.stringify(error.params.allowedValues)})` : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

function load(): GitLabDescription {
  const document = structuredClone(vendored) as unknown as Json;
  const docsPaths = new Set<string>();
  for (const [template, item] of Object.entries(DOCS_OPERATIONS.paths)) {
    for (const method of Object.keys(item as Json)) docsPaths.add(`${method} ${template}`);
    const paths = document.paths as Json;
    paths[template] = { ...((paths[template] as Json | undefined) ?? {}), ...(structuredClone(item) as Json) };
  }
  document.definitions = { ...(document.definitions as Json), ...structuredClone(DOCS_OPERATIONS.definitions) };
  projectIdsAreStrings(document);
  const routes = indexOperations(document, docsPaths);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  for (const name of ['int32', 'int64', 'double', 'float', 'binary', 'byte', 'password']) ajv.addFormat(name, true);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  return {
    operations: routes.map((route) => route.operation),
    match(method, path) {
      for (const route of routes) {
        if (route.operation.method !== method.toUpperCase()) continue;
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
    check(schema, value) {
      const key = typeof schema === 'string' ? schema : JSON.stringify(schema);
      let validate = validators.get(key);
      if (!validate) {
        if (typeof schema === 'string') {
          const fragment = schema.replace(/^#/, '').split('/').map(encodeURIComponent).join('/');
          validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
          if (!validate) throw new Error(`no schema at ${schema} in the GitLab description`);
        } else validate = ajv.compile(schema);
        validators.set(key, validate);
      }
      return validate(value) ? [] : (validate.errors ?? []).map(describeError);
    },
  };
}

let description: GitLabDescription | null = null;

/** The description, read and indexed on first use and kept for the life of the process. */
export function gitlabDescription(): GitLabDescription {
  description ??= load();
  return description;
}

/** A path or query string turned into the value its `type` names, so ajv can judge it. */
export function coerceParameter(text: string, type: string | undefined): unknown {
  if ((type === 'integer' && /^-?\d+$/.test(text)) || (type === 'number' && text.trim() !== '' && Number.isFinite(Number(text)))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * The body as GitLab reads it before validating: a comma-separated string where the operation
 * documents an array of strings becomes that array; the names of properties it does not document.
 */
export function readBody(operation: Operation, body: unknown): { body: unknown; unknown: string[] } {
  if (!operation.body || body === null || typeof body !== 'object' || Array.isArray(body)) return { body, unknown: [] };
  const read: Json = { ...(body as Json) };
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(read)) {
    const schema = operation.body.properties[name];
    if (!schema) unknown.push(name);
    else if (schema.type === 'array' && typeof value === 'string' && (schema.items as Json | undefined)?.type === 'string')
      read[name] = value === '' ? [] : value.split(',').map((part) => part.trim());
  }
  return { body: read, unknown };
}
