/**
 * The concurrency key of one event for one automation (flow control): its `concurrency_key`
 * expression evaluated over the payload, as text — a string as it is, a number or boolean as
 * written, anything else as JSON. `null` (no key: the run is not grouped) when the expression
 * gives null or fails; a filter fails closed, but a key that cannot be computed should not stop
 * the run. Long values are replaced by their SHA-256, so keys stay small in storage and indexes.
 * @module
 */
import { createHash } from 'node:crypto';
import type { CompiledAutomation } from './compiled-automation.js';

/** Keys longer than this are stored as `sha256:<hex>`. */
export const MAX_KEY_LENGTH = 200;

export function concurrencyKeyOf(automation: CompiledAutomation, payload: unknown): string | null {
  if (!automation.concurrencyKey) return null;
  let value: unknown;
  try {
    value = automation.concurrencyKey.evaluate(payload);
  } catch {
    return null;
  }
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_KEY_LENGTH ? `sha256:${createHash('sha256').update(text).digest('hex')}` : text;
}

/** Whether an automation asks for any flow control, so ingest must look at its live runs. */
export function hasFlowControl(record: CompiledAutomation['record']): boolean {
  return Boolean(record.concurrency_key || record.debounce_seconds || record.rate_limit);
}
