/**
 * The OpenHands V1 view of settings (`/api/v1/settings`): the nested `agent_settings` and
 * `conversation_settings` derived from the flat settings, a save body (diffs and flat fields)
 * turned into the flat fields it changes, and the settings JSON Schema documents.
 * @module
 */
import { z } from 'zod';
import { validationError } from '../kernel/errors.js';
import {
  agentSettingsDiffSchema,
  conversationSettingsDiffSchema,
  v1SettingsSaveInputSchema,
  type SettingsSchemaDocument,
  type V1SettingsView,
} from '../schemas/openhands-settings.js';
import { settingsInputSchema, type ParsedSettingsInput, type SettingsView } from '../schemas/settings.js';
import { parseInput } from '../kernel/validation.js';

/** The flat fields a V1 save changes, with their validated values. */
export type SettingsChanges = Partial<ParsedSettingsInput>;

type FlatField = keyof ParsedSettingsInput;

const FLAT_FIELDS = new Set(Object.keys(settingsInputSchema.shape));

/** Where each member of the diffs lands among the flat fields. */
const AGENT_DIFF_FIELDS: readonly { path: readonly [string, string?]; field: FlatField }[] = [
  { path: ['llm', 'model'], field: 'llm_model' },
  { path: ['llm', 'base_url'], field: 'llm_base_url' },
  { path: ['llm', 'api_key'], field: 'llm_api_key' },
  { path: ['condenser', 'enabled'], field: 'enable_default_condenser' },
  { path: ['agent'], field: 'agent' },
  { path: ['mcp_config'], field: 'mcp_config' },
];
const CONVERSATION_DIFF_FIELDS: readonly FlatField[] = ['confirmation_mode', 'security_analyzer', 'max_iterations'];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (value: unknown, key: string): value is Record<string, unknown> => isRecord(value) && Object.hasOwn(value, key);

/** `GET /api/v1/settings`: the flat view and OpenHands' nested views of it (never a secret). */
export function openHandsSettingsView(view: SettingsView): V1SettingsView {
  return Object.assign({}, view, {
    agent_settings: {
      llm: { model: view.llm_model, base_url: view.llm_base_url },
      condenser: { enabled: view.enable_default_condenser },
      agent: view.agent,
      mcp_config: view.mcp_config,
    },
    conversation_settings: {
      confirmation_mode: view.confirmation_mode,
      security_analyzer: view.security_analyzer,
      max_iterations: view.max_iterations,
    },
  });
}

/**
 * The flat fields a `POST /api/v1/settings` body changes: validated with the flat fields' own
 * schemas (422 for a bad value, an unknown field, a field named twice, or OpenHands' whole
 * `agent_settings`); only the members the body names are in the answer.
 */
export function openHandsSettingsChanges(input: unknown): SettingsChanges {
  const body = input === undefined ? {} : input;
  const condenser = has(body, 'agent_settings_diff') && has(body.agent_settings_diff, 'condenser') ? body.agent_settings_diff.condenser : undefined;
  if (has(condenser, 'max_size')) {
    throw validationError(
      ['body', 'agent_settings_diff', 'condenser', 'max_size'],
      'the condenser size is not configurable on this platform: older history is summarised when the context nears the model’s limit',
    );
  }
  const parsed = parseInput(v1SettingsSaveInputSchema, body);
  const raw = body as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  const named = new Map<string, (string | number)[]>();
  const set = (field: FlatField, value: unknown, loc: (string | number)[]) => {
    const earlier = named.get(field);
    if (earlier) throw validationError(loc, `${field} is given twice: here and at ${earlier.slice(1).join('.')}`);
    named.set(field, loc);
    changes[field] = value;
  };
  for (const key of Object.keys(raw)) {
    if (FLAT_FIELDS.has(key)) set(key as FlatField, parsed[key as FlatField], ['body', key]);
  }
  const agentDiff = raw.agent_settings_diff;
  const parsedAgent = parsed.agent_settings_diff as Record<string, Record<string, unknown> | unknown> | null | undefined;
  for (const { path, field } of AGENT_DIFF_FIELDS) {
    const [outer, inner] = path;
    if (!has(agentDiff, outer)) continue;
    if (inner === undefined) {
      set(field, parsedAgent?.[outer], ['body', 'agent_settings_diff', outer]);
    } else if (has(agentDiff[outer], inner)) {
      set(field, (parsedAgent?.[outer] as Record<string, unknown> | undefined)?.[inner], ['body', 'agent_settings_diff', outer, inner]);
    }
  }
  const conversationDiff = raw.conversation_settings_diff;
  const parsedConversation = parsed.conversation_settings_diff as Record<string, unknown> | null | undefined;
  for (const field of CONVERSATION_DIFF_FIELDS) {
    if (has(conversationDiff, field)) set(field, parsedConversation?.[field], ['body', 'conversation_settings_diff', field]);
  }
  return changes as SettingsChanges;
}

type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  writeOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
};
type SchemaField = SettingsSchemaDocument['sections'][number]['fields'][number];

/** The schema without its `null` alternative (a nullable member). */
function nonNull(schema: JsonSchema): JsonSchema {
  const alternatives = schema.anyOf?.filter((alternative) => alternative.type !== 'null');
  return alternatives?.length === 1 ? { ...(alternatives[0] as JsonSchema), ...pick(schema) } : schema;
}
const pick = ({ title, description, writeOnly }: JsonSchema): JsonSchema => ({
  ...(title !== undefined ? { title } : {}),
  ...(description !== undefined ? { description } : {}),
  ...(writeOnly !== undefined ? { writeOnly } : {}),
});
const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);
const isScalar = (schema: JsonSchema): boolean => {
  const types = typesOf(schema).filter((type) => type !== 'null');
  return types.length === 1 && ['string', 'boolean', 'number', 'integer'].includes(types[0] as string);
};

function widgetOf(schema: JsonSchema): SchemaField['widget'] {
  if (schema.writeOnly) return 'password';
  if (schema.enum) return 'select';
  const types = typesOf(schema);
  if (types.includes('boolean')) return 'boolean';
  if (types.includes('number') || types.includes('integer')) return 'number';
  return 'text';
}

const defaultOf = (value: unknown): SchemaField['default'] =>
  typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string' ? value : null;

function fieldsOf(section: { key: string; label: string }, properties: [string, JsonSchema][]): SchemaField[] {
  return properties.map(([name, schema], index) => {
    const widget = widgetOf(schema);
    return {
      key: `${section.key}.${name}`,
      label: schema.title ?? name,
      description: schema.description ?? null,
      section: section.key,
      section_label: section.label,
      order: (index + 1) * 10,
      widget,
      default: defaultOf(schema.default),
      required: false,
      advanced: false,
      depends_on: [],
      secret: widget === 'password',
      choices: (schema.enum ?? []).map((value) => ({ value: String(value), label: String(value) })),
    };
  });
}

/**
 * The JSON Schema of a settings diff (zod's `z.toJSONSchema`, the input side), with OpenHands'
 * `model_name` and `sections` beside it: one section per nested object with scalar members
 * (those members), and one for the scalar members at the top.
 */
export function settingsSchemaDocument(schema: z.ZodType, modelName: string, topSection: { key: string; label: string }): SettingsSchemaDocument {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema & Record<string, unknown>;
  const sections: SettingsSchemaDocument['sections'] = [];
  const top: [string, JsonSchema][] = [];
  for (const [name, property] of Object.entries(json.properties ?? {})) {
    const member = nonNull(property);
    if (member.properties) {
      const section = { key: name, label: member.title ?? name };
      const scalars = Object.entries(member.properties)
        .map(([key, value]) => [key, nonNull(value)] as [string, JsonSchema])
        .filter(([, value]) => isScalar(value));
      // An object of lists only (mcp_config) has no field a form can show: the JSON Schema describes it.
      if (scalars.length > 0) sections.push({ ...section, fields: fieldsOf(section, scalars) });
    } else if (isScalar(member)) {
      top.push([name, member]);
    }
  }
  if (top.length > 0) sections.push({ ...topSection, fields: fieldsOf(topSection, top) });
  return { ...json, model_name: modelName, sections } as SettingsSchemaDocument;
}

/** `GET /api/v1/settings/agent-schema`. */
export const agentSettingsSchemaDocument = (): SettingsSchemaDocument =>
  settingsSchemaDocument(agentSettingsDiffSchema, 'AgentSettings', { key: 'agent', label: 'Agent' });

/** `GET /api/v1/settings/conversation-schema`. */
export const conversationSettingsSchemaDocument = (): SettingsSchemaDocument =>
  settingsSchemaDocument(conversationSettingsDiffSchema, 'ConversationSettings', { key: 'conversation', label: 'Conversation' });
