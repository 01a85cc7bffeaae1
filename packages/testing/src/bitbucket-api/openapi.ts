/**
 * Bitbucket Cloud's published OpenAPI description, trimmed to the operations the platform calls
 * (`bitbucket-openapi.json` beside this file: its `info.x-origin` says where it comes from),
 * indexed by method and path template, with ajv validators for parameters, request bodies and
 * answers — so the stand-in judges what it is sent and what it answers by Bitbucket's shapes,
 * not ours.
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import document from './bitbucket-openapi.json' with { type: 'json' };

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The `$id` the document is registered under; validators are JSON pointers into it. */
const DOCUMENT_ID = 'https://api.bitbucket.org/swagger.v3.json';

export interface BitbucketOperation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/repositories/{workspace}/{repo_slug}/pullrequests`. */
  template: string;
  /** Path parameters → pointer to their schema, and the schema's type (to read the path's text as a value). */
  pathParameters: { name: string; schema: string; type: string | undefined }[];
  /** Query parameters the operation names itself. */
  queryParameters: { name: string; schema: string; type: string | undefined; required: boolean }[];
  /** Pointer to the `application/json` request body's schema; `null`: the operation takes none. */
  body: { required: boolean; schema: string } | null;
  /** Documented statuses → pointer to their `application/json` schema (`null`: no JSON body). */
  responses: Record<string, string | null>;
  /** The OAuth scopes Bitbucket asks of a token for it (`security[].oauth2`). */
  scopes: string[];
  /** Whether it answers a page of a list (`paginated_…`): then it takes Bitbucket's `page`, `pagelen`, `q` and `sort`. */
  paginated: boolean;
}

export interface BitbucketDescription {
  match(method: string, path: string): { operation: BitbucketOperation; params: Record<string, string> } | null;
  /** The problems of `value` against the schema at `pointer`; empty when it conforms. */
  check(pointer: string, value: unknown): string[];
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

interface Route {
  operation: BitbucketOperation;
  pattern: RegExp;
  names: string[];
}

function index(doc: Json): Route[] {
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const itemPointer = `#/paths/${escapePointer(template)}`;
    for (const method of METHODS) {
      const raw = item[method] as Json | undefined;
      if (!raw) continue;
      const pointer = `${itemPointer}/${method}`;
      const pathParameters: BitbucketOperation['pathParameters'] = [];
      const queryParameters: BitbucketOperation['queryParameters'] = [];
      for (const [listPointer, list] of [
        [`${itemPointer}/parameters`, item.parameters],
        [`${pointer}/parameters`, raw.parameters],
      ] as const) {
        if (!Array.isArray(list)) continue;
        list.forEach((parameter: Json, at) => {
          const schema = `${listPointer}/${at}/schema`;
          const type = (parameter.schema as Json | undefined)?.type as string | undefined;
          if (parameter.in === 'path') pathParameters.push({ name: String(parameter.name), schema, type });
          else if (parameter.in === 'query') queryParameters.push({ name: String(parameter.name), schema, type, required: parameter.required === true });
        });
      }
      const requestBody = raw.requestBody as Json | undefined;
      const body = (requestBody?.content as Json | undefined)?.['application/json']
        ? { required: requestBody?.required === true, schema: `${pointer}/requestBody/content/application~1json/schema` }
        : null;
      const responses: Record<string, string | null> = {};
      for (const [status, answer] of Object.entries((raw.responses as Record<string, Json>) ?? {})) {
        responses[status] = (answer.content as Json | undefined)?.['application/json']
          ? `${pointer}/responses/${status}/content/application~1json/schema`
          : null;
      }
      const ok = ((raw.responses as Record<string, Json> | undefined)?.['200']?.content as Json | undefined)?.['application/json'] as Json | undefined;
      const paginated = String((ok?.schema as Json | undefined)?.$ref ?? '').includes('/paginated_');
      const scopes = ((raw.security as Json[] | undefined) ?? []).flatMap((entry) => (Array.isArray(entry.oauth2) ? (entry.oauth2 as string[]) : []));
      const names: string[] = [];
      const source = template.replace(/\{([^}]+)\}|[^{]+/g, (whole, name: string | undefined) => {
        if (name === undefined) return whole.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+)';
      });
      const operation = {
        operationId: String(raw.operationId),
        method: method.toUpperCase(),
        template,
        pathParameters,
        queryParameters,
        body,
        responses,
        scopes,
        paginated,
      };
      routes.push({ operation, pattern: new RegExp(`^${source}$`), names });
    }
  }
  return routes;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

function load(): BitbucketDescription {
  const doc = structuredClone(document) as unknown as Json;
  const routes = index(doc);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  // Formats OpenAPI names that JSON Schema has no check for: accepted as they are.
  for (const name of ['int32', 'int64']) ajv.addFormat(name, true);
  ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  return {
    match(method, path) {
      for (const route of routes) {
        if (route.operation.method !== method.toUpperCase()) continue;
        const found = route.pattern.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        route.names.forEach((name, at) => {
          params[name] = decodeURIComponent(found[at + 1] ?? '');
        });
        return { operation: route.operation, params };
      }
      return null;
    },
    check(pointer, value) {
      let validate = validators.get(pointer);
      if (!validate) {
        const fragment = pointer.replace(/^#/, '').split('/').map(encodeURIComponent).join('/');
        validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
        if (!validate) throw new Error(`no schema at ${pointer} in Bitbucket's OpenAPI description`);
        validators.set(pointer, validate);
      }
      return validate(value) ? [] : (validate.errors ?? []).map(describeError);
    },
  };
}

let description: BitbucketDescription | null = null;

/** The description, indexed on first use and kept for the life of the process. */
export function bitbucketDescription(): BitbucketDescription {
  description ??= load();
  return description;
}
