import { z } from 'zod';
import { ExpressionError, MAX_EXPRESSION_LENGTH, compileExpression } from './jmespath.js';

/** A JMESPath expression that must compile (and call only known functions) to be accepted. */
export const expressionSchema = z
  .string()
  .min(1)
  .max(MAX_EXPRESSION_LENGTH)
  .superRefine((source, ctx) => {
    try {
      compileExpression(source);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message, params: { type: 'jmespath_error' } });
    }
  });
