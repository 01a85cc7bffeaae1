import { z } from 'zod';

/** ISO-8601 UTC timestamp as stored and sent. */
export const timestampSchema = z.iso.datetime();

/** `limit` / `offset` query parameters of list endpoints. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;
/** `limit` / `offset` as a caller sends them: both optional (the schema's input type is `unknown`, as it coerces query text). */
export type PageQueryInput = Partial<PageQuery>;

/** `/health` and `/ready`. */
export const serviceStatusSchema = z.object({ status: z.string() });
export type ServiceStatus = z.infer<typeof serviceStatusSchema>;

export const messageResponseSchema = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof messageResponseSchema>;

/** An HTTP header name: an RFC 9110 token, at most 100 characters. */
export const headerNameSchema = z
  .string()
  .max(100)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name');
