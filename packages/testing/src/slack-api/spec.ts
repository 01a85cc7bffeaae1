/**
 * Slack's published Web API description — a trimmed copy of `slack_web_openapi_v2.json` from
 * Slack's `slack-api-specs` repository (OpenAPI 2, API version 1.7.0, October 2020; see
 * `slack-web-openapi.json`'s `x-origin`), holding the methods the platform calls — and the checks
 * the stand-in makes with it: each call's arguments (known, required, of their type) and each
 * answer (against the method's success or error schema, with ajv).
 *
 * The description predates a few things Slack has added since, which `@slack/web-api` (8.x, the
 * client the platform uses) types and sends; for those the client's own argument and response
 * types are the reference, listed in {@link ADDED_ARGUMENTS} and {@link ADDED_FIELDS}:
 * message metadata (`metadata` on `chat.postMessage` and `chat.update`, `include_all_metadata` on
 * `conversations.replies`), link unfurling on `chat.postMessage`, cursor pages
 * (`response_metadata`), and fields of messages the 2020 schemas leave out (`app_id`, `edited`,
 * `metadata`). Its error enums are not complete either (Slack answers `ratelimited`,
 * `missing_scope`, `not_in_channel` … beyond them), so an error's code is checked to be a string only.
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import description from './slack-web-openapi.json' with { type: 'json' };

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

type Json = Record<string, unknown>;

/** An argument as the description (or, for an addition, the client's types) declares it. */
export interface MethodArgument {
  name: string;
  required: boolean;
  /** `string`, `boolean`, `number`, `integer`; `json` for an object or array (JSON text in a form). */
  type: string;
  /** Where its type was read: Slack's description, or `@slack/web-api`'s argument types. */
  from: 'description' | '@slack/web-api';
}

export interface MethodSpec {
  name: string;
  /** The scopes a bot token needs, as the description names them (the first one of its parameter's text). */
  scope: string | null;
  arguments: Map<string, MethodArgument>;
}

/**
 * Arguments newer than the description, with their types from `@slack/web-api`'s argument types
 * (`ChatPostMessageArguments`, `ChatUpdateArguments`, `ConversationsRepliesArguments`).
 */
export const ADDED_ARGUMENTS: Readonly<Record<string, readonly Omit<MethodArgument, 'from'>[]>> = {
  'chat.postMessage': [{ name: 'metadata', required: false, type: 'json' }],
  'chat.update': [
    { name: 'metadata', required: false, type: 'json' },
    { name: 'reply_broadcast', required: false, type: 'boolean' },
  ],
  'conversations.replies': [{ name: 'include_all_metadata', required: false, type: 'boolean' }],
};

/** Fields of answers newer than the description (the client's response types have them), left out before an answer is checked. */
export const ADDED_FIELDS = {
  answer: ['response_metadata', 'needed', 'provided', 'warning', 'errors'],
  message: ['app_id', 'edited', 'metadata'],
} as const;

/** Arguments that hold JSON (text in a form body): the description types them as strings. */
const JSON_ARGUMENTS = new Set(['blocks', 'attachments', 'metadata']);

const document = structuredClone(description) as unknown as Json;
const paths = document.paths as Record<string, Record<string, Json>>;

function methodSpec(path: string): MethodSpec {
  const name = path.slice(1);
  const operation = Object.values(paths[path] ?? {})[0] as Json;
  const parameters = (operation.parameters ?? []) as Json[];
  const found = new Map<string, MethodArgument>();
  let scope: string | null = null;
  for (const parameter of parameters) {
    const argument = String(parameter.name);
    if (argument === 'token') {
      scope = /Requires scope: `([^`]+)`/.exec(String(parameter.description ?? ''))?.[1] ?? null;
      continue;
    }
    const type = JSON_ARGUMENTS.has(argument) ? 'json' : String(parameter.type ?? 'string');
    found.set(argument, { name: argument, required: parameter.required === true, type, from: 'description' });
  }
  for (const added of ADDED_ARGUMENTS[name] ?? []) found.set(added.name, { ...added, from: '@slack/web-api' });
  return { name, scope, arguments: found };
}

/** The methods the description holds, by name (`chat.postMessage`). */
export const METHODS: ReadonlyMap<string, MethodSpec> = new Map(Object.keys(paths).map((path) => [path.slice(1), methodSpec(path)]));

const DOCUMENT_ID = 'https://slack.com/api/openapi.json';
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
addFormats(ajv);
ajv.addSchema({ ...document, $id: DOCUMENT_ID });
const validators = new Map<string, ValidateFunction>();

function validator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    const fragment = pointer.replace(/^#/, '').split('/').map(encodeURIComponent).join('/');
    validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
    if (!validate) throw new Error(`no schema at ${pointer} in Slack's Web API description`);
    validators.set(pointer, validate);
  }
  return validate;
}

const describeError = (error: ErrorObject): string =>
  `${error.instancePath || '(root)'} ${error.message ?? error.keyword}${error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : ''}`;

/** Validates `value` against the schema at `pointer`; the problems, none when it conforms. */
function check(pointer: string, value: unknown, ignore: (error: ErrorObject) => boolean = () => false): string[] {
  const validate = validator(pointer);
  if (validate(value)) return [];
  return (validate.errors ?? []).filter((error) => !ignore(error)).map(describeError);
}

/** A message without the fields the description predates. */
function describedMessage(message: unknown): unknown {
  if (!message || typeof message !== 'object') return message;
  const copy = { ...(message as Json) };
  for (const field of ADDED_FIELDS.message) delete copy[field];
  return copy;
}

/**
 * Checks method `name`'s answer against its success schema (`ok: true`) or its error schema. A
 * `conversations.replies` page's messages are checked as the description's Message object (its
 * per-position schemas require thread fields an unthreaded message has not); `chat.update`'s
 * message is checked without its `blocks`, which that schema types as an object, not the list
 * Slack returns.
 */
export function checkAnswer(name: string, answer: Json): string[] {
  const path = `/${name}`;
  const method = Object.keys(paths[path] ?? {})[0];
  if (!method) return [`${name} is not in the description`];
  const at = `#/paths/~1${name}/${method}/responses`;
  const copy: Json = { ...answer };
  for (const field of ADDED_FIELDS.answer) delete copy[field];
  if (answer.ok !== true) return check(`${at}/default/schema`, copy, (error) => error.keyword === 'enum' && error.instancePath === '/error');
  const problems: string[] = [];
  if (name === 'conversations.replies' && Array.isArray(copy.messages)) {
    for (const [index, message] of copy.messages.entries())
      problems.push(...check('#/definitions/objs_message', describedMessage(message)).map((problem) => `/messages/${index}${problem}`));
    copy.messages = [];
  }
  if (copy.message !== undefined) {
    const message = describedMessage(copy.message) as Json;
    if (name === 'chat.update') delete message.blocks;
    copy.message = message;
  }
  return [...problems, ...check(`${at}/200/schema`, copy)];
}

/** Checks Block Kit `blocks` against the description's (loose) blocks schema. */
export const checkBlocks = (blocks: unknown): string[] => check('#/definitions/blocks', blocks);
