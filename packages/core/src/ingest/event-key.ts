import { compileExpression, type CompiledExpression } from '../expressions/jmespath.js';
import type { EventKeyResult } from '../inbound/inbound-host.js';
import type { WebhookRecord } from '../schemas/webhook.js';
import { sourceKindOf } from '../webhooks/source-kinds.js';
import { header, type RequestHeaders } from './request-headers.js';

export type { EventKeyResult };

const MAX_CACHED = 1000;
const compiled = new Map<string, CompiledExpression>();

/** Compiled expressions by source text: each webhook's expression is compiled once, not per event. */
function expression(source: string): CompiledExpression {
  let expr = compiled.get(source);
  if (!expr) {
    expr = compileExpression(source);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(source, expr);
  }
  return expr;
}

/**
 * The event key of a custom delivery: the header named by `event_key_header`,
 * or `event_key_expr` over the payload. Numbers and booleans become strings; null, empty, a list
 * or an object cannot name an event, and the delivery is then ignored with the reason.
 */
export function customEventKey(
  webhook: { event_key_expr: string; event_key_header: string | null },
  headers: RequestHeaders,
  payload: unknown,
): EventKeyResult {
  if (webhook.event_key_header) {
    const value = header(headers, webhook.event_key_header)?.trim();
    return value ? { ok: true, key: value } : { ok: false, reason: `header ${webhook.event_key_header} is missing or empty` };
  }
  let value: unknown;
  try {
    value = expression(webhook.event_key_expr).evaluate(payload);
  } catch (error) {
    return { ok: false, reason: `event_key_expr failed: ${(error as Error).message}` };
  }
  if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, key: String(value) };
  if (typeof value === 'string' && value !== '') return { ok: true, key: value };
  const got = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : 'an empty string';
  return { ok: false, reason: `event_key_expr "${webhook.event_key_expr}" gave ${got}, not an event name` };
}

/** The event key of a delivery to `webhook`'s source: named by its host's kind (GitLab, Bitbucket, Slack), or as a custom source's fields say. */
export function sourceEventKey(
  webhook: Pick<WebhookRecord, 'kind' | 'event_key_expr' | 'event_key_header'>,
  headers: RequestHeaders,
  payload: unknown,
): EventKeyResult {
  const kind = sourceKindOf(webhook);
  return kind ? kind.eventKey(headers, payload) : customEventKey(webhook, headers, payload);
}
