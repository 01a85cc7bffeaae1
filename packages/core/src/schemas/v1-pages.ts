import { z } from 'zod';

/** `page_id` / `limit` of V1 search endpoints. */
export const cursorQuerySchema = z.object({
  page_id: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
export type CursorQuery = z.infer<typeof cursorQuerySchema>;
/** `page_id` / `limit` as a caller sends them: both optional. */
export type CursorQueryInput = Partial<CursorQuery>;

/** A V1 page: `next_page_id` continues it, `null` on the last page. */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_page_id: z.string().nullable() });
/** The V1 page of a schema's records, e.g. `CursorPageOf<typeof sandboxSchema>`. */
export type CursorPageOf<T extends z.ZodType> = z.infer<ReturnType<typeof pageSchema<T>>>;

export const successSchema = z.object({ success: z.boolean() });
export type SuccessResponse = z.infer<typeof successSchema>;

/** Body of `POST /api/v1/sandboxes` (the spec may also come as a query parameter). */
export const startSandboxInputSchema = z.object({ sandbox_spec_id: z.string().min(1).max(200).nullish() });
export type SandboxStartInput = z.input<typeof startSandboxInputSchema>;
