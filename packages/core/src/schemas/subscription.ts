/**
 * Outbound events: an org's subscribers, and the messages the platform sends them.
 * A subscription is a URL and the event types it wants; each event it wants becomes one
 * message, signed per Standard Webhooks and retried with backoff until it is delivered, fails
 * for good, or is cancelled. Every attempt is logged on its message.
 * @module
 */
import { z } from 'zod';
import { timestampSchema } from './common.js';
import { OUTBOUND_EVENT_TYPES, OUTBOUND_MESSAGE_STATUSES } from './vocabulary.js';

export const outboundEventTypeSchema = z.enum(OUTBOUND_EVENT_TYPES);
export type OutboundEventType = z.infer<typeof outboundEventTypeSchema>;

/** A subscriber URL: absolute http(s), with a host and no credentials, at most 2,000 characters. */
export const subscriberUrlSchema = z
  .string()
  .max(2000)
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  }, 'must be an absolute http or https URL')
  .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), {
    message: 'must not carry credentials; the platform signs each message instead',
  });

const eventTypesSchema = z
  .array(outboundEventTypeSchema)
  .min(1)
  .max(OUTBOUND_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'must not repeat an event type');

/** Body of `POST /api/automation/v1/subscriptions`. */
export const subscriptionCreateInputSchema = z.strictObject({
  url: subscriberUrlSchema,
  event_types: eventTypesSchema,
  description: z.string().trim().max(500).nullish(),
  enabled: z.boolean().default(true),
});
export type SubscriptionCreateInput = z.input<typeof subscriptionCreateInputSchema>;

/** Body of `PATCH /api/automation/v1/subscriptions/{id}`: any subset. Enabling clears the failure count. */
export const subscriptionUpdateInputSchema = z.strictObject({
  url: subscriberUrlSchema.optional(),
  event_types: eventTypesSchema.optional(),
  description: z.string().trim().max(500).nullish(),
  enabled: z.boolean().optional(),
});
export type SubscriptionUpdateInput = z.input<typeof subscriptionUpdateInputSchema>;

const subscriptionFieldsSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  url: z.string(),
  event_types: z.array(outboundEventTypeSchema),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Why the platform disabled it (sustained failure); `null` when enabled or disabled by a user. */
  disabled_reason: z.string().nullable(),
  /** Failed attempts since the last success. */
  consecutive_failures: z.number().int().min(0),
  /** When the current run of failures began; `null` after a success. */
  failing_since: timestampSchema.nullable(),
  last_success_at: timestampSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

/** A subscription as returned: its signing secret is never shown again after create and rotate. */
export const subscriptionSchema = subscriptionFieldsSchema;
export type Subscription = z.infer<typeof subscriptionSchema>;

/** The answer to create and rotate: the subscription and its signing secret (`whsec_...`), shown once. */
export const subscriptionWithSecretSchema = subscriptionFieldsSchema.extend({ secret: z.string() });
export type SubscriptionWithSecret = z.infer<typeof subscriptionWithSecretSchema>;

/** A subscription as stored: the secret sealed by the secret box. */
export const subscriptionRecordSchema = subscriptionFieldsSchema.extend({ secret_encrypted: z.string() });
export type SubscriptionRecord = z.infer<typeof subscriptionRecordSchema>;

export const subscriptionListSchema = z.object({ subscriptions: z.array(subscriptionSchema), total: z.number().int() });
export type SubscriptionList = z.infer<typeof subscriptionListSchema>;

export const outboundMessageStatusSchema = z.enum(OUTBOUND_MESSAGE_STATUSES);
export type OutboundMessageStatus = z.infer<typeof outboundMessageStatusSchema>;

/** One try at sending a message. */
export const outboundAttemptSchema = z.object({
  /** 1 for the first try; replays continue the count. */
  attempt: z.number().int().min(1),
  at: timestampSchema,
  /** The subscriber's HTTP status; `null` when no answer came (refused address, timeout, connection error). */
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int().min(0),
  /** Why it failed, when it did (never the response body). */
  error: z.string().nullable(),
});
export type OutboundAttempt = z.infer<typeof outboundAttemptSchema>;

/**
 * The body every subscriber receives: Standard Webhooks' recommended envelope. `data` is the
 * run (as `GET /runs/{id}` returns it) or the delivery (without its payload), or the subscription.
 */
export const outboundPayloadSchema = z.object({
  type: outboundEventTypeSchema,
  timestamp: timestampSchema,
  data: z.record(z.string(), z.unknown()),
});
export type OutboundPayload = z.infer<typeof outboundPayloadSchema>;

const outboundMessageFieldsSchema = z.object({
  /** Also the `webhook-id` header: the same on every attempt and replay, so receivers can drop repeats. */
  id: z.string(),
  org_id: z.string(),
  subscription_id: z.string(),
  event_type: outboundEventTypeSchema,
  payload: outboundPayloadSchema,
  status: outboundMessageStatusSchema,
  /** Attempts made so far. */
  attempt: z.number().int().min(0),
  /** When the next attempt is due, while `pending`. */
  next_attempt_at: timestampSchema.nullable(),
  /** Why it ended `failed` or `cancelled`. */
  detail: z.string().nullable(),
  /** Every attempt, oldest first (the last 50 are kept). */
  attempts: z.array(outboundAttemptSchema),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

export const outboundMessageSchema = outboundMessageFieldsSchema;
export type OutboundMessage = z.infer<typeof outboundMessageSchema>;

/** A message as stored: the sender holding it, and until when. */
export const outboundMessageRecordSchema = outboundMessageFieldsSchema.extend({
  lease_owner: z.string().nullable(),
  lease_expires_at: timestampSchema.nullable(),
  /** The W3C `traceparent` of the span that emitted the event: its sends join that trace. */
  trace_parent: z.string().nullish(),
});
export type OutboundMessageRecord = z.infer<typeof outboundMessageRecordSchema>;

export const outboundMessageListSchema = z.object({ messages: z.array(outboundMessageSchema), total: z.number().int() });
export type OutboundMessageList = z.infer<typeof outboundMessageListSchema>;

/** Query of `GET .../subscriptions/{id}/messages`. */
export const outboundMessageQuerySchema = z.object({
  status: outboundMessageStatusSchema.optional(),
});
