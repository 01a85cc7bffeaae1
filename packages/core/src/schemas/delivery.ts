import { z } from 'zod';
import { timestampSchema } from './common.js';
import { DELIVERY_STATUSES } from './vocabulary.js';

export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/**
 * Why a candidate automation did or did not match: `not_a_command` — a thread automation's event
 * asked nothing of it (no mention, another label); `actor_refused` — the sender may not command it
 * (`error` says who and why); `thread_command` — a stop or an answer to a held action, done in the
 * thread instead of starting a run (`detail` says what it did).
 */
export const OUTCOME_REASONS = ['matched', 'event_pattern', 'filter_false', 'filter_error', 'not_a_command', 'actor_refused', 'thread_command'] as const;

/** One candidate automation's result for a delivery. */
export const deliveryOutcomeSchema = z.object({
  automation_id: z.string(),
  automation_name: z.string(),
  matched: z.boolean(),
  reason: z.enum(OUTCOME_REASONS),
  /** The filter's error message, for `filter_error`; why, for `not_a_command` and `actor_refused`. */
  error: z.string().nullable(),
  /** What a `thread_command` did (the runs it stopped, the action it answered); absent otherwise. */
  detail: z.string().nullish(),
  /** The run created for a match. */
  run_id: z.string().nullable(),
});
export type DeliveryOutcome = z.infer<typeof deliveryOutcomeSchema>;

const deliveryFieldsSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  source: z.string(),
  /** The sender's delivery id (`X-GitHub-Delivery`, `webhook-id`, ...), when it sent one. */
  provider_delivery_id: z.string().nullable(),
  /** `null` when no event key could be taken (status `ignored`). */
  event_key: z.string().nullable(),
  status: deliveryStatusSchema,
  /** Why the delivery was ignored, or which delivery it duplicates. */
  detail: z.string().nullable(),
  outcomes: z.array(deliveryOutcomeSchema),
  runs_created: z.array(z.string()),
  /** The delivery this one replays, for a replay. */
  replay_of: z.string().nullable(),
  received_at: timestampSchema,
});

/** A verified inbound event as returned: the payload parsed. */
export const deliverySchema = deliveryFieldsSchema.extend({ payload: z.unknown() });
export type Delivery = z.infer<typeof deliverySchema>;

/** A delivery in a list: no payload, to keep pages small. */
export const deliverySummarySchema = deliveryFieldsSchema;
export type DeliverySummary = z.infer<typeof deliverySummarySchema>;

/**
 * A delivery as the storage adapter keeps it. The payload is kept as the JSON text received
 * (form-encoded GitHub bodies decoded), so adapters store it without walking it.
 */
export const deliveryRecordSchema = deliveryFieldsSchema.extend({
  payload_json: z.string().nullable(),
  /** What a redelivery of the same event is recognised by. */
  dedup_key: z.string(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;

export const deliveryListSchema = z.object({ deliveries: z.array(deliverySummarySchema), total: z.number().int() });
export type DeliveryList = z.infer<typeof deliveryListSchema>;

/** Query of `GET /api/automation/v1/deliveries`. */
export const deliveryListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  source: z.string().max(50).optional(),
  status: deliveryStatusSchema.optional(),
});
export type DeliveryListQuery = z.infer<typeof deliveryListQuerySchema>;
/** The delivery-log query as a caller sends it: every member optional. */
export type DeliveryListQueryInput = Partial<DeliveryListQuery>;

/** The answer to an inbound event. */
export const ingestResultSchema = z.object({
  received: z.literal(true),
  delivery_id: z.string().optional(),
  duplicate: z.boolean().optional(),
  matched: z.number().int(),
  runs_created: z.array(z.string()),
});
export type IngestResult = z.infer<typeof ingestResultSchema>;
