import { z } from 'zod';
import { ROLES } from './vocabulary.js';

export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

/** Who a service call acts for. Settings, tokens and keys belong to the user; webhooks and automations to the org. */
export const principalSchema = z.object({
  userId: z.string().min(1),
  orgId: z.string().min(1),
  /** Their role in the org; absent (a host's own authenticator, a service called directly) is `owner`. */
  role: roleSchema.optional(),
});
export type Principal = z.infer<typeof principalSchema>;
