/**
 * Matching an event and recording it: the delivery, its outcomes and one PENDING run per
 * matched automation, stored in one transaction together with the dedup claim.
 * Matching is done before the transaction; the transaction only writes.
 * @module
 */
import type { AutomationIndex } from '../matching/automation-index.js';
import { matchEvent } from '../matching/match-event.js';
import type { DeliveryWrite, StorageRepositories } from '../ports/storage.js';
import type { DeliveryRecord, IngestResult } from '../schemas/delivery.js';
import type { RunRecord } from '../schemas/run.js';
import type { ServiceContext } from '../kernel/context.js';
import type { TriggerMarks } from './trigger-marks.js';
import { newRunRecord } from '../runs/run-record.js';
import { logDelivery } from './delivery-log.js';
import { concurrencyKeyOf, hasFlowControl } from '../matching/concurrency-key.js';
import { applyFlowControl, type FlowOutcome, type FlowRun } from './flow-control.js';
import { noteRunTransition } from '../runs/run-lifecycle.js';
import type { ActorTrust } from '../threads/actor-trust.js';
import { gateMatches, type ThreadControl } from './thread-gate.js';
import { applyThreadControls, describeThreadControls } from './thread-controls.js';

export interface EventToRecord {
  orgId: string;
  source: string;
  providerDeliveryId: string | null;
  /** `null` for a replay, which is never deduplicated. */
  dedupKey: string | null;
  /** The event key, or why there is none (the delivery is then `ignored`). */
  eventKey: { ok: true; key: string } | { ok: false; reason: string };
  payload: unknown;
  payloadJson: string;
  replayOf?: string | null;
}

export interface PreparedDelivery {
  delivery: DeliveryRecord;
  runs: RunRecord[];
  dedupKey: string | null;
  triggered: string[];
  /** The runs whose automation has flow control, applied when they are written. */
  flows: FlowRun[];
  /** Stops and answers from a thread, done once the delivery is recorded. */
  controls: ThreadControl[];
}

/**
 * `trust`: who may command thread automations (asked of the code host); `null` trusts nobody
 * whose trust must be checked.
 */
export async function prepareDelivery(
  context: ServiceContext,
  index: AutomationIndex,
  event: EventToRecord,
  trust: ActorTrust | null = null,
): Promise<PreparedDelivery> {
  const now = context.clock.now().toISOString();
  const deliveryId = context.ids.newId('dlv');
  const base: DeliveryRecord = {
    id: deliveryId,
    org_id: event.orgId,
    source: event.source,
    provider_delivery_id: event.providerDeliveryId,
    event_key: null,
    status: 'ignored',
    detail: null,
    outcomes: [],
    runs_created: [],
    replay_of: event.replayOf ?? null,
    received_at: now,
    payload_json: event.payloadJson,
    dedup_key: event.dedupKey ?? `replay:${deliveryId}`,
  };
  if (!event.eventKey.ok) {
    return { delivery: { ...base, detail: event.eventKey.reason }, runs: [], dedupKey: event.dedupKey, triggered: [], flows: [], controls: [] };
  }
  const eventKey = event.eventKey.key;
  const sourceIndex = await index.get(event.orgId, event.source);
  const span = context.telemetry.tracer.startSpan('agent_platform.match', {
    attributes: { 'agent_platform.source': event.source, 'agent_platform.event_key': eventKey, 'agent_platform.automations.candidates': sourceIndex.size },
  });
  const match = matchEvent(sourceIndex, eventKey, event.payload);
  span.setAttribute('agent_platform.automations.matched', match.matched.length);
  span.end();
  const { outcomes } = match;
  const gated = match.matched.length > 0 ? await gateMatches(trust, event.source, eventKey, event.payload, match) : { runs: [], controls: [] };
  const runs: RunRecord[] = [];
  const runByAutomation = new Map<string, string>();
  const flows: FlowRun[] = [];
  for (const { automation, threadKey } of gated.runs) {
    const run = newRunRecord(context, {
      orgId: event.orgId,
      automationId: automation.record.id,
      createdAt: now,
      event: { deliveryId, eventKey },
      // One run per thread at a time: the thread is the key, unless the automation names its own.
      concurrencyKey: concurrencyKeyOf(automation, event.payload) ?? threadKey,
      threadKey,
    });
    runs.push(run);
    runByAutomation.set(automation.record.id, run.id);
    if (hasFlowControl(automation.record) || threadKey !== null) flows.push({ run, automation: automation.record });
  }
  for (const outcome of outcomes) outcome.run_id = runByAutomation.get(outcome.automation_id) ?? null;
  const delivery: DeliveryRecord = {
    ...base,
    event_key: eventKey,
    status: runs.length > 0 || gated.controls.length > 0 ? 'matched' : 'unmatched',
    outcomes,
    runs_created: runs.map((run) => run.id),
  };
  await describeThreadControls(context, event.orgId, gated.controls);
  const triggered = [...gated.runs.map(({ automation }) => automation.record.id), ...gated.controls.map(({ automation }) => automation.id)];
  return { delivery, runs, dedupKey: event.dedupKey, triggered, flows, controls: gated.controls };
}

/** What committing one delivery gave: the answer, and the delivery it repeats (`null` for a new one). */
export interface CommittedDelivery {
  result: IngestResult;
  duplicateOf: string | null;
  /** What flow control did, for a delivery with runs under it. */
  flow: FlowOutcome | null;
}

/**
 * Writes a prepared delivery: the claim, the delivery and its runs in one atomic step of the
 * adapter (one statement on PostgreSQL). A redelivery (its dedup key already claimed within the
 * window) writes nothing there, and is then logged as `duplicate`, without payload or runs.
 */
export async function commitDelivery(
  repositories: StorageRepositories,
  context: ServiceContext,
  prepared: PreparedDelivery,
  dedupWindowSeconds: number,
): Promise<CommittedDelivery> {
  const { delivery } = prepared;
  let claim: DeliveryWrite['claim'] = null;
  if (prepared.dedupKey) {
    const now = context.clock.now();
    claim = {
      orgId: delivery.org_id,
      source: delivery.source,
      key: prepared.dedupKey,
      expiresAt: new Date(now.getTime() + dedupWindowSeconds * 1000).toISOString(),
      now: now.toISOString(),
    };
  }
  const { duplicateOf } = await repositories.deliveries.recordDelivery({ delivery, runs: prepared.runs, claim });
  if (duplicateOf !== null) {
    await repositories.deliveries.insert({
      ...delivery,
      status: 'duplicate',
      detail: `duplicate of ${duplicateOf}`,
      outcomes: [],
      runs_created: [],
      payload_json: null,
    });
    return { result: { received: true, duplicate: true, matched: 0, runs_created: [] }, duplicateOf, flow: null };
  }
  // After the write, in the same transaction (see `commitAll`): a redelivery never gets here.
  const flow = prepared.flows.length > 0 ? await applyFlowControl(repositories, prepared.flows, context.clock.now()) : null;
  return {
    result: { received: true, delivery_id: delivery.id, matched: prepared.runs.length, runs_created: delivery.runs_created },
    duplicateOf: null,
    flow,
  };
}

/**
 * Every delivery of `prepared` with its runs, or none. One delivery (every custom source, and a
 * GitHub delivery that reaches one org) needs no transaction: its write is atomic on its own —
 * unless flow control must read and change live runs with it.
 */
async function commitAll(context: ServiceContext, prepared: readonly PreparedDelivery[], dedupWindowSeconds: number): Promise<CommittedDelivery[]> {
  if (prepared.length === 1 && (prepared[0] as PreparedDelivery).flows.length === 0)
    return [await commitDelivery(context.storage, context, prepared[0] as PreparedDelivery, dedupWindowSeconds)];
  return context.storage.transaction(async (tx) => {
    const out: CommittedDelivery[] = [];
    for (const one of prepared) out.push(await commitDelivery(tx, context, one, dedupWindowSeconds));
    return out;
  });
}

/**
 * After the commit: note on the matched automations that they fired, and wake the executor.
 * `last_triggered_at` is informational and written outside the transaction: inside it, every
 * delivery matching a popular automation would write that one row, and concurrent deliveries
 * would conflict on it.
 */
async function afterCommit(
  context: ServiceContext,
  prepared: readonly PreparedDelivery[],
  results: readonly IngestResult[],
  recording: DeliveryRecording,
): Promise<void> {
  const triggerMarks = recording.triggerMarks ?? null;
  for (const [index, one] of prepared.entries()) {
    if (results[index]?.duplicate) continue;
    tellSubscribers(context, one.delivery);
    recording.delivered?.(one.delivery);
    if (one.triggered.length === 0) continue;
    if (triggerMarks) {
      triggerMarks.note(one.delivery.org_id, one.triggered, one.delivery.received_at);
      continue;
    }
    await context.storage.automations.markTriggered(one.delivery.org_id, one.triggered, one.delivery.received_at).catch(() => {
      // Best effort: the delivery and its runs are stored; a missed timestamp is not worth a 5xx.
    });
  }
  // Not awaited: the answer never waits for the wake-up, and the executors' poll stands behind it.
  if (results.some((result) => result.runs_created.length > 0)) void context.announce({ type: 'runs.pending' });
}

/** Logs and tells subscribers what flow control did; the processes running superseded runs stop them. */
async function noteFlow(context: ServiceContext, flow: FlowOutcome): Promise<void> {
  for (const run of flow.changed) if (run.status === 'SKIPPED') await noteRunTransition(context, run, 'PENDING');
  for (const run of flow.cancelled) {
    await noteRunTransition(context, run, null);
    await context.announce({ type: 'run.cancelled', orgId: run.org_id, runId: run.id });
  }
}

/** `delivery.received` for subscribers (an outbound event): the delivery as listed, without its payload. */
function tellSubscribers(context: ServiceContext, delivery: DeliveryRecord): void {
  const { payload_json: _payload, dedup_key: _key, ...summary } = delivery;
  context.outbound.emit(delivery.org_id, 'delivery.received', summary);
}

/** How deliveries are recorded: the dedup window, and where `last_triggered_at` marks gather (written at once without). */
export interface DeliveryRecording {
  dedupWindowSeconds: number;
  /** Who may command thread automations; without it, nobody whose trust must be checked. */
  trust?: ActorTrust | null;
  /** Told of each delivery once it is recorded (not of duplicates); must not throw or wait. */
  delivered?: (delivery: DeliveryRecord) => void;
  triggerMarks?: TriggerMarks | null;
}

/**
 * Commits one request's deliveries in one transaction, logs each (one line per delivery, once it
 * is committed), then notes what fired.
 */
export async function recordDeliveries(context: ServiceContext, prepared: readonly PreparedDelivery[], recording: DeliveryRecording): Promise<IngestResult[]> {
  const committed = await commitAll(context, prepared, recording.dedupWindowSeconds);
  const results = committed.map((one) => one.result);
  for (const [index, one] of committed.entries()) logDelivery(context.logger, (prepared[index] as PreparedDelivery).delivery, one.duplicateOf);
  for (const one of committed) if (one.flow) await noteFlow(context, one.flow);
  for (const [index, one] of prepared.entries()) {
    if (one.controls.length > 0 && !results[index]?.duplicate) await applyThreadControls(context, one.delivery, one.controls);
  }
  await afterCommit(context, prepared, results, recording);
  return results;
}
