import { z } from 'zod';
import { timestampSchema } from './common.js';
import { roleSchema } from './principal.js';

/**
 * `POST /api/keys`: strict, like every body of the platform's own API — a misspelled `role`
 * (`"rle": "viewer"`) is a 422 naming it, never a key with the creator's whole role.
 */
export const apiKeyCreateInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).default('API key'),
  /** The new key's role: at most the creating key's own (the default). */
  role: roleSchema.optional(),
});
export type ApiKeyCreateInput = z.input<typeof apiKeyCreateInputSchema>;

/** An API key as listed: never the key itself. */
export const apiKeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the key, to tell keys apart. */
  prefix: z.string(),
  org_id: z.string(),
  /** The key's role in its org (keys stored before roles existed are owners). */
  role: roleSchema,
  created_at: timestampSchema,
  last_used_at: timestampSchema.nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;

/** The answer to creating a key: the only time `key` is shown. */
export const createdApiKeySchema = apiKeyViewSchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const apiKeyListSchema = z.object({ keys: z.array(apiKeyViewSchema) });
export type ApiKeyList = z.infer<typeof apiKeyListSchema>;

/** An API key as the storage adapter keeps it: the SHA-256 of the key, hex. */
export const apiKeyRecordSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  org_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  key_hash: z.string(),
  /** Absent on keys stored before roles existed, which are owners of their org. */
  role: roleSchema.optional(),
  created_at: timestampSchema,
  last_used_at: timestampSchema.nullable(),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>;

/**
 * `GET /api/keys/current` (OpenHands' `getCurrentApiKey`): the stored API key the request
 * authenticated with. `auth_type` is always `api_key`: a sandbox session key authenticates only
 * its own conversation's agent-server routes, never this one.
 */
export const currentApiKeySchema = apiKeyViewSchema.extend({
  user_id: z.string(),
  auth_type: z.literal('api_key'),
});
export type CurrentApiKey = z.infer<typeof currentApiKeySchema>;
