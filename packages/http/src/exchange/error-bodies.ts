/**
 * The bodies of error answers as schemas (what `error-response.ts` sends), for the routes'
 * documented answers and the OpenAPI document's components.
 * @module
 */
import { z } from 'zod';

/** `{"detail": "..."}`: every error except validation failures. */
export const errorBodySchema = z.object({ detail: z.string() });

/** The 422 body: FastAPI's list of validation issues, each with its `loc`, `msg` and `type`. */
export const validationErrorBodySchema = z.object({
  detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })),
});
