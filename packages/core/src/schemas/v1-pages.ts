import { z } from 'zod';

/** `page_id` / `limit` of V1 search endpoints. */
export const cursorQuerySchema = z.object({
  page_id: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
export type CursorQuery = z.infer<typeof cursorQuerySchema>;

/** A V1 page: `next_page_id` continues it, `null` on the last page. */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_page_id: z.string().nullable() });

export const successSchema = z.object({ success: z.boolean() });

/** Body of `POST /api/v1/sandboxes` (the spec may also come as a query parameter). */
export const startSandboxInputSchema = z.object({ sandbox_spec_id: z.string().min(1).max(200).nullish() });
