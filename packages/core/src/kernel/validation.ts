/**
 * Turns zod failures into the FastAPI-style issue list of a 422 answer, with exact `loc` paths.
 * @module
 */
import type { z } from 'zod';
import { PlatformError, type ValidationIssue } from './errors.js';

export type LocRoot = 'body' | 'query' | 'path' | 'header';

type ZodIssue = z.core.$ZodIssue;

/** The longest key or name echoed back in an issue; longer ones are cut, so an answer never repeats a large input. */
export const MAX_ECHOED_KEY_LENGTH = 64;

/** A key from the input as it may appear in an answer: at most {@link MAX_ECHOED_KEY_LENGTH} characters. */
export const echoedKey = (key: string): string => {
  // Control characters and lone surrogates are shown as U+FFFD: escaped in JSON they would make
  // a 64-character excerpt six times as long, and they are never part of a real field name.
  const shown = key.length > MAX_ECHOED_KEY_LENGTH ? `${key.slice(0, MAX_ECHOED_KEY_LENGTH)}…` : key;
  return shown.replace(/[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
};

function describe(issue: ZodIssue, root: LocRoot): ValidationIssue[] {
  const loc = [root, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : typeof part === 'string' ? echoedKey(part) : part))];
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return [{ loc, msg: 'Field required', type: 'missing' }];
      return [{ loc, msg: issue.message, type: `${issue.expected}_type` }];
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        loc: [...loc, echoedKey(key)],
        msg: `Unknown field "${echoedKey(key)}"`,
        type: 'extra_forbidden',
      }));
    case 'invalid_key':
      return [{ loc, msg: issue.issues[0]?.message ?? issue.message, type: 'invalid_key' }];
    case 'custom': {
      const type = typeof issue.params?.type === 'string' ? issue.params.type : 'value_error';
      return [{ loc, msg: issue.message, type }];
    }
    default:
      return [{ loc, msg: issue.message, type: issue.code }];
  }
}

/** Converts a zod error into validation issues rooted at `root`. */
export function toValidationIssues(error: z.ZodError, root: LocRoot = 'body'): ValidationIssue[] {
  return error.issues.flatMap((issue) => describe(issue, root));
}

/** The most issues one answer lists: an input with thousands of bad fields gets the first ones. */
export const MAX_REPORTED_ISSUES = 50;

/** Parses `input` or throws a `VALIDATION_FAILED` {@link PlatformError}. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, root: LocRoot = 'body'): z.output<S> {
  // reportInput lets a missing field (input undefined) be told from a wrong type; inputs never reach the answer.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error, root).slice(0, MAX_REPORTED_ISSUES);
  throw new PlatformError('VALIDATION_FAILED', issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '), {
    issues,
  });
}
