import { z } from 'zod';
import { mcpConfigSchema } from './mcp-config.js';
import { timestampSchema } from './common.js';
import { PROVIDER_TYPES } from './vocabulary.js';

export const providerTypeSchema = z.enum(PROVIDER_TYPES);
export type ProviderType = z.infer<typeof providerTypeSchema>;

/** One provider's token. An empty `token` keeps the stored token and takes the new `host`. */
export const providerTokenInputSchema = z.object({
  token: z.string().nullish(),
  host: z.string().max(500).nullish(),
  user_id: z.string().max(200).nullish(),
});
export type ProviderTokenInput = z.input<typeof providerTokenInputSchema>;

/** Body of `POST /api/add-git-providers`. Unknown providers are rejected. */
export const providerTokensInputSchema = z.object({
  provider_tokens: z.partialRecord(providerTypeSchema, providerTokenInputSchema).default({}),
  mcp_config: mcpConfigSchema.nullish(),
});
export type ProviderTokensInput = z.input<typeof providerTokensInputSchema>;

/** Body of `POST /api/unset-provider-tokens`: no body clears every token; `providers` clears only those. */
export const unsetProviderTokensInputSchema = z.object({
  providers: z.array(providerTypeSchema).nullish(),
});
export type UnsetProviderTokensInput = z.input<typeof unsetProviderTokensInputSchema>;

export const storedProviderTokenSchema = z.object({
  /** Sealed with the `SecretBox`. */
  token: z.string(),
  host: z.string().nullable(),
  user_id: z.string().nullable(),
});
export type StoredProviderToken = z.infer<typeof storedProviderTokenSchema>;

/** A user's provider tokens as the storage adapter keeps them. */
export const providerTokensRecordSchema = z.object({
  user_id: z.string(),
  tokens: z.partialRecord(providerTypeSchema, storedProviderTokenSchema),
  updated_at: timestampSchema,
});
export type ProviderTokensRecord = z.infer<typeof providerTokensRecordSchema>;
