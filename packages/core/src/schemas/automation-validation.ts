import { z } from 'zod';
import { automationCreateInputSchema } from './automation.js';
import { timestampSchema } from './common.js';
import { OUTCOME_REASONS } from './delivery.js';

/** Most recent deliveries `test_recent` may ask for. */
export const MAX_TEST_RECENT = 50;

/**
 * Body of `POST /api/automation/v1/validate`: an automation draft, checked as create
 * checks it, and optionally evaluated against a sample payload and the source's recent deliveries.
 */
export const automationValidateInputSchema = z.strictObject({
  /** The draft, exactly as `POST /api/automation/v1` takes it. */
  automation: automationCreateInputSchema,
  /** A payload to evaluate the trigger against. */
  sample_payload: z.unknown().optional(),
  /**
   * The sample's event key, when the payload alone does not name it: always for GitHub
   * (`pull_request.opened`: the event is a header), and for sources keyed by a header. Default:
   * the source's `event_key_expr` over the payload.
   */
  sample_event_key: z.string().trim().min(1).max(200).optional(),
  /** Evaluate against the source's last n deliveries (duplicates, which keep no payload, are skipped). */
  test_recent: z.number().int().min(1).max(MAX_TEST_RECENT).optional(),
});
export type AutomationValidateInput = z.input<typeof automationValidateInputSchema>;

/** Why a payload did or did not match the draft: a delivery outcome's reasons, or no event key to match. */
export const VALIDATION_REASONS = [...OUTCOME_REASONS, 'no_event_key'] as const;

/** The draft's verdict on one payload. */
export const automationValidationResultSchema = z.object({
  /** `sample` for `sample_payload`, `delivery` for one of the recent deliveries. */
  payload: z.enum(['sample', 'delivery']),
  delivery_id: z.string().nullable(),
  received_at: timestampSchema.nullable(),
  event_key: z.string().nullable(),
  matched: z.boolean(),
  reason: z.enum(VALIDATION_REASONS),
  /** The filter's error, or why there is no event key. */
  detail: z.string().nullable(),
});
export type AutomationValidationResult = z.infer<typeof automationValidationResultSchema>;

/** Answer of `POST /api/automation/v1/validate`; an invalid draft is a 422, as create's. */
export const automationValidationSchema = z.object({
  valid: z.literal(true),
  /** The trigger as it would be stored. */
  trigger: z.object({ type: z.literal('event'), source: z.string(), on: z.union([z.string(), z.array(z.string())]), filter: z.string().nullable() }),
  /** Whether the draft would be enabled (a disabled automation is evaluated, but never fires). */
  enabled: z.boolean(),
  /** The sample first (when given), then the recent deliveries newest first. */
  results: z.array(automationValidationResultSchema),
});
export type AutomationValidation = z.infer<typeof automationValidationSchema>;
