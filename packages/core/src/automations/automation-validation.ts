/**
 * Checking an automation draft before saving it (`POST /api/automation/v1/validate`): validated as create validates it,
 * then its trigger — event pattern and filter — evaluated exactly as ingest evaluates it
 * (`matchEvent`, with the same evaluation budget), against a sample payload and against the
 * source's recent deliveries. Nothing is stored.
 * @module
 */
import { checkReporting } from './reporting-rule.js';
import { storedTrigger } from './stored-trigger.js';
import { matchEvent } from '../matching/match-event.js';
import { SourceIndex } from '../matching/source-index.js';
import { validationError } from '../kernel/errors.js';
import { sourceEventKey, type EventKeyResult } from '../ingest/event-key.js';
import type { AutomationRecord } from '../schemas/automation.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import { automationValidateInputSchema, type AutomationValidation, type AutomationValidationResult } from '../schemas/automation-validation.js';
import type { DeliveryRecord } from '../schemas/delivery.js';
import type { Principal } from '../schemas/principal.js';
import { parseInput } from '../kernel/validation.js';
import type { ServiceContext } from '../kernel/context.js';

/** Deliveries read per page while looking for `test_recent` ones that kept their payload. */
const PAGE = 50;
/** Deliveries scanned at most for them (duplicates keep no payload). */
const MAX_SCANNED = 500;

export async function validateAutomationDraft(context: ServiceContext, principal: Principal, input: unknown): Promise<AutomationValidation> {
  const parsed = parseInput(automationValidateInputSchema, input);
  const draft = parsed.automation;
  const trigger = storedTrigger(draft.trigger);
  const now = context.clock.now().toISOString();
  const record: AutomationRecord = {
    id: 'auto_draft',
    org_id: principal.orgId,
    created_by: principal.userId,
    name: draft.name,
    enabled: true,
    trigger,
    instructions: draft.instructions,
    sandbox_spec_id: draft.sandbox_spec_id ?? null,
    llm_model: draft.llm_model ?? null,
    selected_repository: draft.selected_repository ?? null,
    timeout_seconds: draft.timeout_seconds ?? null,
    report_to_github: draft.report_to_github ?? Boolean(trigger.mention || trigger.label),
    allowed_actors: draft.allowed_actors ?? null,
    created_at: now,
    updated_at: now,
    last_triggered_at: null,
  };
  checkReporting({ report_to_github: draft.report_to_github, trigger }, ['body', 'automation', 'report_to_github']);
  const index = new SourceIndex([record]);
  const verdict = (eventKey: EventKeyResult, payload: unknown): Pick<AutomationValidationResult, 'event_key' | 'matched' | 'reason' | 'detail'> => {
    if (!eventKey.ok) return { event_key: null, matched: false, reason: 'no_event_key', detail: eventKey.reason };
    const [outcome] = matchEvent(index, eventKey.key, payload).outcomes;
    if (!outcome) return { event_key: eventKey.key, matched: false, reason: 'event_pattern', detail: null };
    return { event_key: eventKey.key, matched: outcome.matched, reason: outcome.reason, detail: outcome.error };
  };

  const results: AutomationValidationResult[] = [];
  if (parsed.sample_payload !== undefined) {
    const key = await sampleEventKey(context, principal.orgId, trigger.source, parsed.sample_payload, parsed.sample_event_key);
    results.push({ payload: 'sample', delivery_id: null, received_at: null, ...verdict(key, parsed.sample_payload) });
  }
  if (parsed.test_recent !== undefined) {
    for (const delivery of await recentDeliveries(context, principal.orgId, trigger.source, parsed.test_recent)) {
      const key: EventKeyResult =
        delivery.event_key !== null ? { ok: true, key: delivery.event_key } : { ok: false, reason: delivery.detail ?? 'the delivery has no event key' };
      results.push({
        payload: 'delivery',
        delivery_id: delivery.id,
        received_at: delivery.received_at,
        ...verdict(key, JSON.parse(delivery.payload_json as string)),
      });
    }
  }
  return { valid: true, trigger, enabled: draft.enabled, results };
}

/** The sample's event key: the one given, else what the source's webhook would take from the payload. */
async function sampleEventKey(context: ServiceContext, orgId: string, source: string, payload: unknown, given: string | undefined): Promise<EventKeyResult> {
  if (given !== undefined) return { ok: true, key: given };
  if (source === GITHUB_SOURCE) {
    throw validationError(
      ['body', 'sample_event_key'],
      'sample_event_key is required with a GitHub sample payload (the event is a header), e.g. "pull_request.opened"',
      'missing',
    );
  }
  const webhook = await context.storage.webhooks.getBySource(orgId, source);
  if (!webhook) return { ok: false, reason: `no webhook is registered for source "${source}": give sample_event_key` };
  if (webhook.event_key_header)
    return { ok: false, reason: `source "${source}" takes its event key from the ${webhook.event_key_header} header: give sample_event_key` };
  return sourceEventKey(webhook, {}, payload);
}

/** The source's last `count` deliveries that kept their payload, newest first. */
async function recentDeliveries(context: ServiceContext, orgId: string, source: string, count: number): Promise<DeliveryRecord[]> {
  const found: DeliveryRecord[] = [];
  for (let offset = 0; found.length < count && offset < MAX_SCANNED; offset += PAGE) {
    const page = await context.storage.deliveries.list(orgId, { limit: PAGE, offset, source });
    for (const delivery of page.items) {
      if (delivery.payload_json !== null && found.length < count) found.push(delivery);
    }
    if (offset + PAGE >= page.total) break;
  }
  return found;
}
