import { z } from 'zod';
import { errorBodySchema, validationErrorBodySchema } from '../exchange/error-bodies.js';
import type { RouteResponseDoc } from '../exchange/types.js';

export const errorDoc = (description: string): RouteResponseDoc => ({ description, schema: errorBodySchema });
export const unauthorized = errorDoc('Missing or invalid credentials');
export const notFoundDoc = errorDoc('Not found, or not visible to the caller');
export const invalid: RouteResponseDoc = { description: 'Validation failed', schema: validationErrorBodySchema };
export const badBody = errorDoc('Malformed JSON or body not valid UTF-8');
export const tooLargeDoc = errorDoc('Body over the size limit');
export const unsupported = errorDoc('Body is not JSON');

/** The failures any route with a JSON body can answer. */
export const bodyErrors = { 400: badBody, 413: tooLargeDoc, 415: unsupported, 422: invalid } as const;

export const successSchema = z.object({ success: z.boolean() });
