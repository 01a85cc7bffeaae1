/**
 * The hosts' source kinds: what a `gitlab`, `bitbucket` or `slack` webhook is registered with
 * (its verification, event naming and delivery id, fixed by the kind) and how ingest reads their
 * deliveries — in code, per host (`inbound/<host>.ts`), not through the fields a custom source
 * writes by hand. A kind's `event_key_expr` names events as its code does (tested), for what
 * shows a source's naming as an expression.
 * @module
 */
import {
  BITBUCKET_EVENT_KEY_HEADER,
  BITBUCKET_REQUEST_ID_HEADER,
  BITBUCKET_SIGNATURE_HEADER,
  bitbucketDeliveryId,
  bitbucketEventKey,
} from '../inbound/bitbucket.js';
import { GITLAB_EVENT_KEY_EXPR, GITLAB_IDEMPOTENCY_HEADER, gitlabDeliveryId, gitlabEventKey } from '../inbound/gitlab.js';
import type { EventKeyResult, InboundHeaders } from '../inbound/inbound-host.js';
import { SLACK_EVENT_KEY_EXPR, slackDeliveryId, slackEventKey, slackPayloadText, slackUrlVerification } from '../inbound/slack.js';
import { kindOf, type HostSourceKind, type UrlVerificationAnswer, type WebhookRecord } from '../schemas/webhook.js';
import { GITLAB_TOKEN_HEADER } from '../signatures/schemes/gitlab-token.js';
import { SLACK_SIGNATURE_HEADER } from '../signatures/schemes/slack.js';

/** The fields a kind sets on its webhooks. */
export type KindPreset = Pick<WebhookRecord, 'signature_scheme' | 'signature_header' | 'event_key_expr' | 'event_key_header' | 'delivery_id_header'>;

export interface SourceKind {
  readonly kind: HostSourceKind;
  readonly preset: KindPreset;
  /** Whether the host generates the secret (Slack's signing secret): then it must be given, never generated. */
  readonly hostMakesSecret: boolean;
  /** The delivery's JSON text, from the body as received; `null` when a form-encoded body has no `payload`. */
  payloadText(headers: InboundHeaders, body: string): string | null;
  eventKey(headers: InboundHeaders, payload: unknown): EventKeyResult;
  /** The host's id of the delivery, repeated on its retries; `null` when it sent none. */
  deliveryId(headers: InboundHeaders, payload: unknown): string | null;
  /** An answer the host expects instead of a recorded delivery (Slack's URL verification), or `null`. */
  handshake(payload: unknown): UrlVerificationAnswer | null;
}

const asSent = (_headers: InboundHeaders, body: string): string => body;
const noHandshake = (): null => null;

export const SOURCE_KINDS: Readonly<Record<HostSourceKind, SourceKind>> = {
  gitlab: {
    kind: 'gitlab',
    preset: {
      signature_scheme: 'gitlab-token',
      signature_header: GITLAB_TOKEN_HEADER,
      event_key_expr: GITLAB_EVENT_KEY_EXPR,
      event_key_header: null,
      delivery_id_header: GITLAB_IDEMPOTENCY_HEADER,
    },
    hostMakesSecret: false,
    payloadText: asSent,
    eventKey: (_headers, payload) => gitlabEventKey(payload),
    deliveryId: (headers) => gitlabDeliveryId(headers),
    handshake: noHandshake,
  },
  bitbucket: {
    kind: 'bitbucket',
    preset: {
      signature_scheme: 'hmac-sha256',
      signature_header: BITBUCKET_SIGNATURE_HEADER,
      event_key_expr: 'type',
      event_key_header: BITBUCKET_EVENT_KEY_HEADER,
      delivery_id_header: BITBUCKET_REQUEST_ID_HEADER,
    },
    hostMakesSecret: false,
    payloadText: asSent,
    eventKey: (headers) => bitbucketEventKey(headers),
    deliveryId: (headers) => bitbucketDeliveryId(headers),
    handshake: noHandshake,
  },
  slack: {
    kind: 'slack',
    preset: {
      signature_scheme: 'slack',
      signature_header: SLACK_SIGNATURE_HEADER,
      event_key_expr: SLACK_EVENT_KEY_EXPR,
      event_key_header: null,
      delivery_id_header: null,
    },
    hostMakesSecret: true,
    payloadText: slackPayloadText,
    eventKey: (_headers, payload) => slackEventKey(payload),
    deliveryId: (_headers, payload) => slackDeliveryId(payload),
    handshake(payload) {
      const challenge = slackUrlVerification(payload);
      return challenge === null ? null : { challenge };
    },
  },
};

/** The kind of a stored webhook, or `null` for a custom one. */
export function sourceKindOf(webhook: Pick<WebhookRecord, 'kind'>): SourceKind | null {
  const kind = kindOf(webhook);
  return kind === 'custom' ? null : SOURCE_KINDS[kind];
}
