/**
 * Settings in the OpenHands V1 shape (`/api/v1/settings`): the same settings as
 * `/api/settings`, seen also as OpenHands' nested `agent_settings` and `conversation_settings`,
 * and saved as a partial diff. Each nested field is the flat field's own schema, so both paths
 * validate a value the same way.
 * @module
 */
import { z } from 'zod';
import { mcpConfigViewSchema } from './mcp-config.js';
import { settingsInputSchema, settingsViewSchema } from './settings.js';

const flat = settingsInputSchema.shape;

/**
 * `agent_settings_diff` of `POST /api/v1/settings`: the members sent change, the others stay.
 * `llm.model` / `llm.base_url` / `llm.api_key` are `llm_model` / `llm_base_url` / `llm_api_key`,
 * `condenser.enabled` is `enable_default_condenser`, `agent` and `mcp_config` keep their names.
 * Unknown members are refused. Its JSON Schema is `GET /api/v1/settings/agent-schema`.
 */
export const agentSettingsDiffSchema = z
  .strictObject({
    llm: z
      .strictObject({
        model: flat.llm_model.meta({ title: 'Model', description: 'The model, named as LiteLLM names it (e.g. anthropic/claude-sonnet-4).' }),
        base_url: flat.llm_base_url.meta({ title: 'Base URL', description: 'An OpenAI- or Anthropic-compatible endpoint to call instead of the provider’s.' }),
        api_key: flat.llm_api_key.meta({ title: 'API key', description: 'Stored sealed, never returned; "" removes it.', writeOnly: true }),
      })
      .nullish()
      .meta({ title: 'LLM' }),
    condenser: z
      .strictObject({
        enabled: flat.enable_default_condenser.meta({
          title: 'Enable memory condensation',
          description: 'Summarise older history when the context nears the model’s limit.',
        }),
      })
      .nullish()
      .meta({ title: 'Condenser' }),
    agent: flat.agent.meta({
      title: 'Agent',
      description: 'The agent to run, by name: coding (the default), read-only, command, or one the host registers (GET /api/options/agents lists them).',
    }),
    mcp_config: flat.mcp_config.meta({ title: 'MCP servers', description: 'sse_servers, shttp_servers and stdio_servers, as in /api/settings.' }),
  })
  .meta({ title: 'AgentSettings' });
export type AgentSettingsDiff = z.input<typeof agentSettingsDiffSchema>;

/**
 * `conversation_settings_diff` of `POST /api/v1/settings`: the members sent change. Its JSON
 * Schema is `GET /api/v1/settings/conversation-schema`.
 */
export const conversationSettingsDiffSchema = z
  .strictObject({
    confirmation_mode: flat.confirmation_mode.meta({ title: 'Confirmation mode', description: 'Hold each action of the agent until the user accepts it.' }),
    security_analyzer: flat.security_analyzer.meta({ title: 'Security analyzer' }),
    max_iterations: flat.max_iterations.meta({ title: 'Max iterations', description: 'Steps the agent may take in one run.' }),
  })
  .meta({ title: 'ConversationSettings' });
export type ConversationSettingsDiff = z.input<typeof conversationSettingsDiffSchema>;

/** Settings fields of the `GET /api/v1/settings` answer that are read-only: a save that echoes them back ignores them. */
export const V1_SETTINGS_READ_ONLY_FIELDS = ['llm_api_key_set', 'search_api_key_set', 'sandbox_api_key_set', 'provider_tokens_set', 'custom_secrets'] as const;

/**
 * Body of `POST /api/v1/settings`: a partial update. The diffs and the flat fields (any field of
 * `POST /api/settings`, validated as it validates them) change only what they name; one field
 * may not be named twice (flat and in a diff). OpenHands' whole `agent_settings` /
 * `conversation_settings` are refused, as OpenHands refuses them; the read-only fields of the
 * GET answer are accepted and ignored, so a GET → edit → POST round trip works. Other unknown
 * fields are refused.
 */
export const v1SettingsSaveInputSchema = z.strictObject({
  ...flat,
  agent_settings_diff: agentSettingsDiffSchema.nullish(),
  conversation_settings_diff: conversationSettingsDiffSchema.nullish(),
  agent_settings: z
    .unknown()
    .refine((value) => value === undefined, 'send agent_settings_diff: settings are saved as a partial diff')
    .optional(),
  conversation_settings: z
    .unknown()
    .refine((value) => value === undefined, 'send conversation_settings_diff: settings are saved as a partial diff')
    .optional(),
  // Read-only (V1_SETTINGS_READ_ONLY_FIELDS): accepted and ignored.
  llm_api_key_set: z.unknown().optional(),
  search_api_key_set: z.unknown().optional(),
  sandbox_api_key_set: z.unknown().optional(),
  provider_tokens_set: z.unknown().optional(),
  custom_secrets: z.unknown().optional(),
});
export type V1SettingsSaveInput = z.input<typeof v1SettingsSaveInputSchema>;

/** `agent_settings` of the `GET /api/v1/settings` answer: never the API key. */
export const agentSettingsViewSchema = z.object({
  llm: z.object({ model: z.string().nullable(), base_url: z.string().nullable() }),
  condenser: z.object({ enabled: z.boolean() }),
  agent: z.string().nullable(),
  mcp_config: mcpConfigViewSchema.nullable(),
});
export type AgentSettingsView = z.infer<typeof agentSettingsViewSchema>;

/** `conversation_settings` of the `GET /api/v1/settings` answer. */
export const conversationSettingsViewSchema = z.object({
  confirmation_mode: z.boolean().nullable(),
  security_analyzer: z.string().nullable(),
  max_iterations: z.number().int().nullable(),
});
export type ConversationSettingsView = z.infer<typeof conversationSettingsViewSchema>;

/** `GET /api/v1/settings`: the `/api/settings` view (secrets masked) with OpenHands' nested views. */
export const v1SettingsViewSchema = settingsViewSchema.extend({
  agent_settings: agentSettingsViewSchema,
  conversation_settings: conversationSettingsViewSchema,
});
export type V1SettingsView = z.infer<typeof v1SettingsViewSchema>;

/** One field of a {@link SettingsSchemaDocument} section (OpenHands' `SettingsFieldSchema`). */
export const settingsFieldSchemaSchema = z.object({
  key: z.string(),
  label: z.string(),
  description: z.string().nullable(),
  section: z.string(),
  section_label: z.string(),
  order: z.number().int(),
  widget: z.enum(['text', 'password', 'number', 'boolean', 'select']),
  default: z.union([z.boolean(), z.number(), z.string(), z.null()]),
  required: z.boolean(),
  advanced: z.boolean(),
  depends_on: z.array(z.string()),
  secret: z.boolean(),
  choices: z.array(z.object({ value: z.string(), label: z.string() })),
});

/**
 * `GET /api/v1/settings/agent-schema` and `/conversation-schema`: the JSON Schema (2020-12) of
 * the diff, generated from its zod schema, with OpenHands' `model_name` and `sections` (one
 * section per nested object, its scalar fields) beside the JSON Schema keywords.
 */
export const settingsSchemaDocumentSchema = z.looseObject({
  $schema: z.string(),
  type: z.literal('object'),
  properties: z.record(z.string(), z.unknown()),
  model_name: z.string(),
  sections: z.array(z.object({ key: z.string(), label: z.string(), fields: z.array(settingsFieldSchemaSchema) })),
});
export type SettingsSchemaDocument = z.infer<typeof settingsSchemaDocumentSchema>;
