/**
 * A model call that failed, as a run's failure reason: clear about what happened (401, 404,
 * rate limits after retries), never holding the API key. For 401 and 403 the provider's own
 * message is left out altogether (OpenAI's quotes part of the key).
 * @module
 */
import { APICallError } from '@ai-sdk/provider';
import { redact } from '@agent-platform/core/adapter-kit';
import { ModelCallError } from './model-call.js';

function lastCallError(error: unknown): { call: APICallError | null; attempts: number; last: unknown } {
  const last = error instanceof ModelCallError ? error.lastError : error;
  return { call: APICallError.isInstance(last) ? last : null, attempts: error instanceof ModelCallError ? error.attempts : 1, last };
}

/** The provider's own message from an error body, if it is one of the known shapes. */
function providerMessage(call: APICallError): string | null {
  try {
    const body = JSON.parse(call.responseBody ?? '') as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'object' ? body.error?.message : typeof body.error === 'string' ? body.error : body.message;
    return typeof message === 'string' ? message.slice(0, 500) : null;
  } catch {
    return null;
  }
}

export function describeModelError(error: unknown, model: string, secrets: readonly string[]): string {
  const { call, attempts, last } = lastCallError(error);
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (call?.statusCode !== undefined) {
    const status = call.statusCode;
    const said = providerMessage(call);
    const detail = said ? `: ${redact(said, secrets)}` : '';
    if (status === 401) return `the LLM provider rejected the API key for ${model} (HTTP 401): check llm_api_key`;
    if (status === 403) return `the LLM provider refused access to ${model} (HTTP 403): check llm_api_key and the account's permissions`;
    if (status === 404) return `the LLM provider does not know the model ${model} (HTTP 404)${detail}`;
    if (status === 429) return `the LLM provider rate-limited ${model} (HTTP 429)${tries}${detail}`;
    if (status >= 500) return `the LLM provider failed (HTTP ${status})${tries}${detail}`;
    return `the LLM provider refused the request for ${model} (HTTP ${status})${detail}`;
  }
  const message = last instanceof Error ? last.message : String(last);
  return `the LLM call for ${model} failed${tries}: ${redact(message, secrets)}`;
}
