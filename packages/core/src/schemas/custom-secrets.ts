import { z } from 'zod';
import { customSecretNameSchema } from './settings.js';

/** Longest custom secret value, as `POST /api/settings` takes them (`secrets_store.custom_secrets`). */
export const MAX_CUSTOM_SECRET_VALUE = 65_536;

const descriptionSchema = z.string().max(1000).nullish();

/**
 * Body of `POST /api/v1/secrets` (OpenHands' `CustomSecretCreate`): a new custom secret. Its
 * value is stored sealed and reaches the agent's commands as the environment variable `name`;
 * it is never returned.
 */
export const customSecretCreateInputSchema = z.strictObject({
  name: customSecretNameSchema,
  value: z.string().min(1).max(MAX_CUSTOM_SECRET_VALUE),
  description: descriptionSchema,
});
export type CustomSecretCreateInput = z.input<typeof customSecretCreateInputSchema>;

/**
 * Body of `PUT /api/v1/secrets/{name}` (OpenHands' `CustomSecretWithoutValue`): the secret's new
 * name (the same one to keep it) and description. The value is kept.
 */
export const customSecretUpdateInputSchema = z.strictObject({
  name: customSecretNameSchema,
  description: descriptionSchema,
});
export type CustomSecretUpdateInput = z.input<typeof customSecretUpdateInputSchema>;

/** A custom secret as listed: its name and description, never its value. */
export const customSecretSchema = z.object({ name: z.string(), description: z.string().nullable() });
export type CustomSecret = z.infer<typeof customSecretSchema>;

/** A page of custom secrets, by name (code-unit order); `next_page_id` continues it. */
export const customSecretPageSchema = z.object({ items: z.array(customSecretSchema), next_page_id: z.string().nullable() });
export type CustomSecretPage = z.infer<typeof customSecretPageSchema>;

/** Query of `GET /api/v1/secrets/search`. */
export const customSecretSearchQuerySchema = z.object({
  /** Only names containing this text (case-insensitive), as OpenHands filters. */
  name__contains: z.string().max(128).optional(),
  page_id: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
export type CustomSecretSearchQuery = z.input<typeof customSecretSearchQuerySchema>;
