/**
 * The one place new run records are built, so every path that creates one — an event delivery,
 * a manual dispatch — writes the same fields the same way.
 * @module
 */
import type { RunRecord } from '../schemas/run.js';
import type { ServiceContext } from '../kernel/context.js';
import { traceparentOf } from '../telemetry/tracing.js';

/** What distinguishes one new run from another. */
export interface NewRun {
  orgId: string;
  automationId: string;
  /** When it was created: the delivery's `received_at`, or now for a dispatch. */
  createdAt: string;
  /** An event run: the delivery that triggered it and its event key. */
  event?: { deliveryId: string; eventKey: string };
  /** A manual run: who dispatched it, and the payload (JSON text) they gave, if any. */
  manual?: { createdBy: string; payloadJson: string | null };
  /** The automation's concurrency key for this event (flow control), if it has one. */
  concurrencyKey?: string | null;
  /** The code-host thread it works in (a thread automation's), if any. */
  threadKey?: string | null;
}

/** A PENDING run that has never been attempted, in the trace of the work creating it (if traced). */
export function newRunRecord(context: ServiceContext, run: NewRun): RunRecord {
  const traceParent = traceparentOf();
  return {
    id: context.ids.newId('run'),
    org_id: run.orgId,
    automation_id: run.automationId,
    delivery_id: run.event?.deliveryId ?? null,
    trigger: run.event ? 'event' : 'manual',
    event_key: run.event?.eventKey ?? null,
    status: 'PENDING',
    attempt: 0,
    conversation_id: null,
    sandbox_id: null,
    error_detail: null,
    created_by: run.manual?.createdBy ?? null,
    created_at: run.createdAt,
    started_at: null,
    completed_at: null,
    metrics: null,
    dispatch_payload_json: run.manual?.payloadJson ?? null,
    ...(run.concurrencyKey != null ? { concurrency_key: run.concurrencyKey } : {}),
    ...(run.threadKey != null ? { thread_key: run.threadKey } : {}),
    ...(traceParent !== null ? { trace_parent: traceParent } : {}),
  };
}
