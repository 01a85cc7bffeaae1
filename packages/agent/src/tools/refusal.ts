/**
 * How a platform-side refusal reaches the model: the `PlatformError`'s code, reason and field
 * errors as an error result it can act on (fix the input, pick another repository). Anything
 * else is a bug and is thrown.
 * @module
 */
import { PlatformError } from '@agent-platform/core';
import type { ToolResult } from './tool.js';

export const asText = (value: unknown): string => JSON.stringify(value, null, 2);

export function refusal(error: unknown): ToolResult {
  if (error instanceof PlatformError) {
    const details = error.issues?.length ? `\n${asText(error.issues)}` : '';
    return { text: `refused (${error.code}): ${error.message}${details}`, isError: true };
  }
  throw error;
}
