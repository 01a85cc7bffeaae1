import { z } from 'zod';
import { headerNameSchema, timestampSchema } from './common.js';
import { expressionSchema } from '../expressions/expression-schema.js';
import { CUSTOM_SIGNATURE_SCHEME_NAMES } from '../signatures/registry.js';
import { GITHUB_SOURCE, SOURCE_NAME_PATTERN } from './vocabulary.js';
import { ingestResultSchema } from './delivery.js';

/** The schemes a custom source may use: those of the signature registry open to custom sources. */
export const SIGNATURE_SCHEMES = CUSTOM_SIGNATURE_SCHEME_NAMES;
export const signatureSchemeSchema = z.enum(SIGNATURE_SCHEMES);
export type SignatureScheme = z.infer<typeof signatureSchemeSchema>;

/** Sources reserved for built-in integrations. */
export const RESERVED_SOURCES = [GITHUB_SOURCE] as const;

/**
 * The hosts a team registers as a source of its own (its GitLab, its Bitbucket workspace, its
 * Slack app): the platform knows how each signs, names and numbers its deliveries, so nothing of
 * that is written by hand. A source of one is named after it: `gitlab`, or `gitlab-` and a
 * suffix (`gitlab-eu`), and such names are that host's only.
 */
export const HOST_SOURCE_KINDS = ['gitlab', 'bitbucket', 'slack'] as const;
export type HostSourceKind = (typeof HOST_SOURCE_KINDS)[number];

/** What a webhook source is: `custom` (verified, named and deduplicated as its fields say) or one of the hosts. */
export const WEBHOOK_KINDS = ['custom', ...HOST_SOURCE_KINDS] as const;
export const webhookKindSchema = z.enum(WEBHOOK_KINDS);
export type WebhookKind = z.infer<typeof webhookKindSchema>;

/** The host a source's name belongs to (`gitlab`, `gitlab-eu` → `gitlab`), or `null` for any other name. */
export function hostKindOfSource(source: string): HostSourceKind | null {
  return HOST_SOURCE_KINDS.find((kind) => source === kind || source.startsWith(`${kind}-`)) ?? null;
}

/** A stored webhook's kind: records stored before kinds existed are custom. */
export const kindOf = (webhook: { kind?: WebhookKind | undefined }): WebhookKind => webhook.kind ?? 'custom';

/** The fields a host's kind sets, and a webhook of that kind cannot be given or changed. */
export const KIND_FIXED_FIELDS = ['event_key_expr', 'event_key_header', 'signature_header', 'signature_scheme', 'delivery_id_header'] as const;

export const webhookSourceSchema = z
  .string()
  .regex(SOURCE_NAME_PATTERN, 'must be 1-50 lowercase letters, digits and hyphens, starting and ending with a letter or digit')
  .refine((source) => !(RESERVED_SOURCES as readonly string[]).includes(source), {
    message: 'is reserved for a built-in source',
  });

const webhookSecretSchema = z.string().min(8, 'must be at least 8 characters').max(1024);

/**
 * Body of `POST /api/automation/v1/webhooks`: a source, and how its deliveries are named, signed
 * and deduplicated — written out for a `custom` one, fixed by the host for the others.
 */
export const webhookCreateInputSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    /** `custom` (the default), or the host whose webhooks this source receives: `gitlab`, `bitbucket`, `slack`. */
    kind: webhookKindSchema.default('custom'),
    source: webhookSourceSchema,
    /** JMESPath naming the event from the payload; default `type`. */
    event_key_expr: expressionSchema.optional(),
    /** Take the event key from this header instead of `event_key_expr`. */
    event_key_header: headerNameSchema.nullish(),
    /** The header carrying an `hmac-sha256` signature; default `X-Signature-256`. */
    signature_header: headerNameSchema.optional(),
    /** Default `hmac-sha256`. */
    signature_scheme: signatureSchemeSchema.optional(),
    /** Header carrying the provider's delivery id, used to drop redeliveries. */
    delivery_id_header: headerNameSchema.nullish(),
    webhook_secret: webhookSecretSchema.nullish(),
    enabled: z.boolean().default(true),
  })
  .superRefine((input, context) => {
    const host = hostKindOfSource(input.source);
    if (input.kind === 'custom') {
      if (host !== null) context.addIssue({ code: 'custom', path: ['source'], message: `is reserved for ${host} sources: register it with "kind": "${host}"` });
      return;
    }
    if (host !== input.kind)
      context.addIssue({ code: 'custom', path: ['source'], message: `a ${input.kind} source is named "${input.kind}" or "${input.kind}-" and a suffix` });
    // The host's kind sets these: a value given for one would be silently replaced.
    for (const field of KIND_FIXED_FIELDS) {
      if (input[field] !== undefined) context.addIssue({ code: 'custom', path: [field], message: `is set by the ${input.kind} kind and cannot be given` });
    }
  });
export type WebhookCreateInput = z.input<typeof webhookCreateInputSchema>;

/** Body of `PATCH /api/automation/v1/webhooks/{id}`; `source` cannot change. */
export const webhookUpdateInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  event_key_expr: expressionSchema.optional(),
  event_key_header: headerNameSchema.nullish(),
  signature_header: headerNameSchema.optional(),
  signature_scheme: signatureSchemeSchema.optional(),
  delivery_id_header: headerNameSchema.nullish(),
  enabled: z.boolean().optional(),
  /** Present only to refuse it with a clear message. */
  source: z
    .unknown()
    .refine((value) => value === undefined, { message: 'cannot be changed; register a new webhook instead' })
    .optional(),
  /** Present only to refuse it with a clear message. */
  kind: z
    .unknown()
    .refine((value) => value === undefined, { message: 'cannot be changed; register a new webhook instead' })
    .optional(),
});
export type WebhookUpdateInput = z.input<typeof webhookUpdateInputSchema>;

/** Body of `POST .../webhooks/{id}/rotate-secret`; an empty body generates a secret. */
export const webhookRotateInputSchema = z.strictObject({
  webhook_secret: webhookSecretSchema.nullish(),
  /** How long the previous secret keeps verifying; defaults to the engine's (24 h). */
  grace_period_seconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600)
    .nullish(),
});
export type WebhookRotateInput = z.input<typeof webhookRotateInputSchema>;

/** What a webhook's stored record and its view share. */
const webhookFieldsSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  source: z.string(),
  /** Absent on records stored before kinds existed, which are custom. */
  kind: webhookKindSchema.optional(),
  event_key_expr: z.string(),
  event_key_header: z.string().nullable(),
  signature_header: z.string(),
  signature_scheme: signatureSchemeSchema,
  delivery_id_header: z.string().nullable(),
  enabled: z.boolean(),
  /** Until when the secret replaced by the last rotation still verifies, if it does. */
  previous_secret_expires_at: timestampSchema.nullable(),
  created_by: z.string(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

/** A webhook as returned: never its secret. */
export const webhookViewSchema = webhookFieldsSchema.extend({ kind: webhookKindSchema, webhook_url: z.string() });
export type WebhookView = z.infer<typeof webhookViewSchema>;

/** Registration answer: `webhook_secret` only when the service generated it. */
export const createdWebhookSchema = webhookViewSchema.extend({ webhook_secret: z.string().optional() });
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;

/** Rotation answer: the new secret, shown once. */
export const rotatedWebhookSchema = webhookViewSchema.extend({ webhook_secret: z.string() });
export type RotatedWebhook = z.infer<typeof rotatedWebhookSchema>;

export const webhookListSchema = z.object({ webhooks: z.array(webhookViewSchema), total: z.number().int() });
export type WebhookList = z.infer<typeof webhookListSchema>;

/** A webhook as the storage adapter keeps it; secrets sealed with the `SecretBox`. */
export const webhookRecordSchema = webhookFieldsSchema.extend({
  secret: z.string(),
  previous_secret: z.string().nullable(),
});
export type WebhookRecord = z.infer<typeof webhookRecordSchema>;

/** Slack's `url_verification` (sent when an app's Request URL is set), verified and answered with its challenge; nothing is stored. */
export const urlVerificationAnswerSchema = z.strictObject({ challenge: z.string() });
export type UrlVerificationAnswer = z.infer<typeof urlVerificationAnswerSchema>;

/** The answer to an event for a source: the delivery's result, or the challenge of Slack's URL verification. */
export const ingestAnswerSchema = z.union([ingestResultSchema, urlVerificationAnswerSchema]);
export type IngestAnswer = z.infer<typeof ingestAnswerSchema>;
