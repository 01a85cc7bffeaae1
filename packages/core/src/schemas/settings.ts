import { z } from 'zod';
import { mcpConfigSchema, mcpConfigViewSchema } from './mcp-config.js';
import { timestampSchema } from './common.js';

/** Settings fields that hold secrets: sealed at rest, never returned. */
export const SETTINGS_SECRET_FIELDS = ['llm_api_key', 'search_api_key', 'sandbox_api_key'] as const;
export type SettingsSecretField = (typeof SETTINGS_SECRET_FIELDS)[number];

/** Fields that keep their stored value when a store omits them or sends `null`. */
export const SETTINGS_STICKY_FIELDS = ['llm_model', 'llm_base_url'] as const;

const optionalString = z.string().nullish();

/**
 * A BCP 47 tag as canonical (`pt-br` → `pt-BR`), or `null` when it is not one: not well-formed,
 * or its language not an ISO 639 code of two or three letters (BCP 47 keeps longer ones for
 * later, so `German` is well-formed but names no language).
 */
const canonicalTag = (tag: string): string | null => {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && /^[a-z]{2,3}$/.test(new Intl.Locale(canonical).language) ? canonical : null;
  } catch {
    return null;
  }
};

/**
 * `language`: a BCP 47 tag (`en`, `de`, `pt-BR`, `zh-CN`, `zh-TW`, `ko-KR`, …) in which the agent
 * writes to people and the platform's comments are written; stored canonical. `""` or `null`:
 * none (English). Anything else is a 422.
 */
export const languageSchema = z
  .string()
  .trim()
  .refine((tag) => tag === '' || (tag.length <= 64 && canonicalTag(tag) !== null), 'language must be a BCP 47 language tag, such as en, de, pt-BR or zh-CN')
  .transform((tag) => (tag === '' ? null : canonicalTag(tag)))
  .nullish();

/** A custom secret's name: it becomes an environment variable of the agent's commands. */
export const customSecretNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a custom secret name is an environment variable name: letters, digits and _, not starting with a digit');

/** One custom secret as sent: its value, or `{ secret, description }` as OpenHands sends it. */
const customSecretInputSchema = z.union([
  z.string().max(65_536),
  z.object({ secret: z.string().max(65_536).nullish(), description: z.string().max(1000).nullish() }),
]);

/**
 * `secrets_store`: `custom_secrets` (name → value) are stored sealed and given to the agent's
 * commands as environment variables. Sent, it replaces the stored set (a member without a value
 * keeps the stored one); omitted, the stored set stays. `provider_tokens` is ignored: tokens are
 * stored through `POST /api/add-git-providers`.
 */
export const secretsStoreInputSchema = z.looseObject({
  custom_secrets: z.record(customSecretNameSchema, customSecretInputSchema).nullish(),
});
const flag = (fallback: boolean) =>
  z
    .boolean()
    .nullish()
    .transform((value) => value ?? fallback);

/**
 * Body of `POST /api/settings`. No field is required; unknown fields are ignored.
 */
export const settingsInputSchema = z.object({
  language: languageSchema,
  agent: optionalString,
  max_iterations: z.number().int().min(1).nullish(),
  security_analyzer: optionalString,
  confirmation_mode: z.boolean().nullish(),
  llm_model: optionalString,
  llm_api_key: optionalString,
  llm_base_url: optionalString,
  remote_runtime_resource_factor: z.number().int().min(1).nullish(),
  secrets_store: secretsStoreInputSchema.nullish(),
  enable_default_condenser: flag(true),
  enable_sound_notifications: flag(false),
  enable_proactive_conversation_starters: flag(true),
  enable_solvability_analysis: flag(true),
  user_consents_to_analytics: z.boolean().nullish(),
  sandbox_base_container_image: optionalString,
  sandbox_runtime_container_image: optionalString,
  mcp_config: mcpConfigSchema.nullish(),
  search_api_key: optionalString,
  sandbox_api_key: optionalString,
  max_budget_per_task: z.number().min(0).nullish(),
  email: optionalString,
  email_verified: z.boolean().nullish(),
  git_user_name: optionalString,
  git_user_email: optionalString,
});
export type SettingsInput = z.input<typeof settingsInputSchema>;
export type ParsedSettingsInput = z.output<typeof settingsInputSchema>;

/** Non-secret settings values, as stored and returned. */
export const settingsValuesSchema = z.object({
  language: z.string().nullable(),
  agent: z.string().nullable(),
  max_iterations: z.number().int().nullable(),
  security_analyzer: z.string().nullable(),
  confirmation_mode: z.boolean().nullable(),
  llm_model: z.string().nullable(),
  llm_base_url: z.string().nullable(),
  remote_runtime_resource_factor: z.number().int().nullable(),
  enable_default_condenser: z.boolean(),
  enable_sound_notifications: z.boolean(),
  enable_proactive_conversation_starters: z.boolean(),
  enable_solvability_analysis: z.boolean(),
  user_consents_to_analytics: z.boolean().nullable(),
  sandbox_base_container_image: z.string().nullable(),
  sandbox_runtime_container_image: z.string().nullable(),
  max_budget_per_task: z.number().nullable(),
  email: z.string().nullable(),
  email_verified: z.boolean().nullable(),
  git_user_name: z.string().nullable(),
  git_user_email: z.string().nullable(),
});
export type SettingsValues = z.infer<typeof settingsValuesSchema>;
export const SETTINGS_VALUE_FIELDS = Object.keys(settingsValuesSchema.shape) as (keyof SettingsValues)[];

/** `GET /api/settings`: secrets are `null`; `*_set` flags say whether one is stored. */
export const settingsViewSchema = settingsValuesSchema.extend({
  llm_api_key: z.null(),
  search_api_key: z.null(),
  sandbox_api_key: z.null(),
  llm_api_key_set: z.boolean(),
  search_api_key_set: z.boolean(),
  sandbox_api_key_set: z.boolean(),
  mcp_config: mcpConfigViewSchema.nullable(),
  /** Provider → its host (or `null` for the provider's default host), for each stored token. */
  provider_tokens_set: z.record(z.string(), z.string().nullable()),
  /** The stored custom secrets: names and descriptions, never values. */
  custom_secrets: z.array(z.object({ name: z.string(), description: z.string().nullable() })),
});
export type SettingsView = z.infer<typeof settingsViewSchema>;

/**
 * A user's settings as the storage adapter keeps them. `secrets` holds sealed values
 * (see `SecretBox`); `mcp_config` keeps its `api_key` and `env` values sealed in place.
 */
export const settingsRecordSchema = z.object({
  user_id: z.string(),
  values: settingsValuesSchema,
  secrets: z.partialRecord(z.enum(SETTINGS_SECRET_FIELDS), z.string()),
  mcp_config: mcpConfigSchema.nullable(),
  /** Custom secrets by name, each value sealed; absent in records stored before they existed. */
  custom_secrets: z.record(z.string(), z.object({ secret: z.string(), description: z.string().nullable() })).nullish(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type SettingsRecord = z.infer<typeof settingsRecordSchema>;
