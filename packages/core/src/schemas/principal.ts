import { z } from 'zod';

/** Who a service call acts for. Settings, tokens and keys belong to the user; webhooks and automations to the org. */
export const principalSchema = z.object({
  userId: z.string().min(1),
  orgId: z.string().min(1),
});
export type Principal = z.infer<typeof principalSchema>;
