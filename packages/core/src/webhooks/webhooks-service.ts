import { keyActor } from '../audit/audit-log.js';
import { randomBytes } from 'node:crypto';
import { WebhookCache } from './webhook-cache.js';
import { PlatformError, notFound, validationError } from '../kernel/errors.js';
import { StorageConflictError } from '../ports/storage.js';
import type { PageQuery } from '../schemas/common.js';
import type { Principal } from '../schemas/principal.js';
import {
  KIND_FIXED_FIELDS,
  kindOf,
  webhookCreateInputSchema,
  webhookRotateInputSchema,
  webhookUpdateInputSchema,
  type CreatedWebhook,
  type RotatedWebhook,
  type WebhookList,
  type WebhookRecord,
  type WebhookView,
} from '../schemas/webhook.js';
import { parseInput } from '../kernel/validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { DEFAULT_HMAC_SIGNATURE_HEADER } from '../signatures/schemes/hmac-sha256.js';
import { SOURCE_KINDS, sourceKindOf } from './source-kinds.js';

/** A generated signing secret: `whsec_` and 32 random bytes, base64url. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** The secrets that verify a webhook's deliveries now: the current one, and the previous one during its grace period. */
export interface WebhookSecrets {
  current: string;
  previous: string | null;
}

/** A change to a field a host's kind sets is a 422 naming the kind (a GitLab source cannot be told to read another header). */
function refuseFixedFields(changes: Record<string, unknown>, kind: string): void {
  const given = KIND_FIXED_FIELDS.find((field) => changes[field] !== undefined);
  if (given) throw validationError(['body', given], `is set by the ${kind} kind and cannot be changed`);
}

/**
 * Webhook sources: custom ones, and the hosts' (GitLab, Bitbucket, Slack), whose verification,
 * event names and delivery ids their kind fixes. They belong to the org: anyone in it can see
 * and manage them; another org's webhooks are invisible (404).
 */
export class WebhooksService {
  /** Ingest's lookup of a source, secrets opened; this service drops entries when it changes them. */
  readonly cache: WebhookCache;

  constructor(private readonly context: ServiceContext) {
    this.cache = new WebhookCache(context.storage, context.secrets, context.clock);
  }

  /** The address external services send events to. */
  webhookUrl(orgId: string, source: string): string {
    return `${this.context.publicUrl}/api/automation/v1/events/${encodeURIComponent(orgId)}/${source}`;
  }

  async register(principal: Principal, input: unknown): Promise<CreatedWebhook> {
    const parsed = parseInput(webhookCreateInputSchema, input);
    const kind = parsed.kind === 'custom' ? null : SOURCE_KINDS[parsed.kind];
    // Slack makes the signing secret (the app's Basic Information page): one made here could verify nothing.
    if (kind?.hostMakesSecret && !parsed.webhook_secret)
      throw validationError(['body', 'webhook_secret'], `is required for a ${kind.kind} source: give the secret ${kind.kind} shows`, 'missing');
    const generated = parsed.webhook_secret ? undefined : generateWebhookSecret();
    const now = nowIso(this.context);
    const fields = kind?.preset ?? {
      event_key_expr: parsed.event_key_expr ?? 'type',
      event_key_header: parsed.event_key_header ?? null,
      signature_header: parsed.signature_header ?? DEFAULT_HMAC_SIGNATURE_HEADER,
      signature_scheme: parsed.signature_scheme ?? 'hmac-sha256',
      delivery_id_header: parsed.delivery_id_header ?? null,
    };
    const record: WebhookRecord = {
      id: this.context.ids.newId('wh'),
      org_id: principal.orgId,
      created_by: principal.userId,
      name: parsed.name,
      source: parsed.source,
      kind: parsed.kind,
      ...fields,
      enabled: parsed.enabled,
      secret: this.context.secrets.seal(parsed.webhook_secret ?? (generated as string)),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.context.storage.webhooks.insert(record);
      await this.changed(principal.orgId);
    } catch (error) {
      if (error instanceof StorageConflictError) {
        throw new PlatformError('CONFLICT', `a webhook for source "${parsed.source}" already exists in this organization`, { cause: error });
      }
      throw error;
    }
    const view = this.toView(record);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'webhook.created',
      target: { type: 'webhook', id: record.id },
      details: { source: record.source, kind: parsed.kind },
    });
    return generated ? { ...view, webhook_secret: generated } : view;
  }

  async list(principal: Principal, page: PageQuery): Promise<WebhookList> {
    const { items, total } = await this.context.storage.webhooks.list(principal.orgId, page);
    return { webhooks: items.map((record) => this.toView(record)), total };
  }

  async get(principal: Principal, id: string): Promise<WebhookView> {
    return this.toView(await this.load(principal, id));
  }

  async update(principal: Principal, id: string, input: unknown): Promise<WebhookView> {
    const parsed = parseInput(webhookUpdateInputSchema, input === undefined ? {} : input);
    const record = await this.load(principal, id);
    const kind = sourceKindOf(record);
    if (kind) refuseFixedFields(parsed, kind.kind);
    const updated: WebhookRecord = {
      ...record,
      name: parsed.name ?? record.name,
      event_key_expr: parsed.event_key_expr ?? record.event_key_expr,
      event_key_header: parsed.event_key_header !== undefined ? parsed.event_key_header : record.event_key_header,
      signature_header: parsed.signature_header ?? record.signature_header,
      signature_scheme: parsed.signature_scheme ?? record.signature_scheme,
      delivery_id_header: parsed.delivery_id_header !== undefined ? parsed.delivery_id_header : record.delivery_id_header,
      enabled: parsed.enabled ?? record.enabled,
      updated_at: nowIso(this.context),
    };
    if (!(await this.context.storage.webhooks.update(updated))) throw notFound('Webhook');
    await this.changed(principal.orgId);
    const fields = Object.keys(parsed).filter((field) => (parsed as Record<string, unknown>)[field] !== undefined);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'webhook.updated',
      target: { type: 'webhook', id },
      details: { source: record.source, fields },
    });
    return this.toView(updated);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    if (!(await this.context.storage.webhooks.delete(principal.orgId, id))) throw notFound('Webhook');
    await this.changed(principal.orgId);
    await this.context.audit.record(principal.orgId, keyActor(principal), { action: 'webhook.deleted', target: { type: 'webhook', id }, details: {} });
  }

  /**
   * Replaces the secret. The old one keeps verifying for the grace period (the engine's default,
   * 24 h, unless the body says otherwise; 0 ends it at once). The new secret is shown only here.
   */
  async rotateSecret(principal: Principal, id: string, input: unknown): Promise<RotatedWebhook> {
    const parsed = parseInput(webhookRotateInputSchema, input === undefined ? {} : input);
    const record = await this.load(principal, id);
    const kind = sourceKindOf(record);
    if (kind?.hostMakesSecret && !parsed.webhook_secret)
      throw validationError(['body', 'webhook_secret'], `is required for a ${kind.kind} source: give the new secret ${kind.kind} shows`, 'missing');
    const secret = parsed.webhook_secret ?? generateWebhookSecret();
    const graceSeconds = parsed.grace_period_seconds ?? this.context.webhookSecretGraceSeconds;
    const now = this.context.clock.now();
    const updated: WebhookRecord = {
      ...record,
      secret: this.context.secrets.seal(secret),
      previous_secret: graceSeconds > 0 ? record.secret : null,
      previous_secret_expires_at: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000).toISOString() : null,
      updated_at: now.toISOString(),
    };
    if (!(await this.context.storage.webhooks.update(updated))) throw notFound('Webhook');
    await this.changed(principal.orgId);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'webhook.secret_rotated',
      target: { type: 'webhook', id },
      details: { source: record.source, grace_period_seconds: graceSeconds },
    });
    return { ...this.toView(updated), webhook_secret: secret };
  }

  /** The secrets that verify deliveries for `record` right now, opened. */
  secretsFor(record: WebhookRecord): WebhookSecrets {
    return {
      current: this.context.secrets.open(record.secret),
      previous: record.previous_secret && this.inGracePeriod(record) ? this.context.secrets.open(record.previous_secret) : null,
    };
  }

  toView(record: WebhookRecord): WebhookView {
    return {
      id: record.id,
      org_id: record.org_id,
      name: record.name,
      source: record.source,
      kind: kindOf(record),
      event_key_expr: record.event_key_expr,
      event_key_header: record.event_key_header,
      signature_header: record.signature_header,
      signature_scheme: record.signature_scheme,
      delivery_id_header: record.delivery_id_header,
      enabled: record.enabled,
      webhook_url: this.webhookUrl(record.org_id, record.source),
      previous_secret_expires_at: this.inGracePeriod(record) ? record.previous_secret_expires_at : null,
      created_by: record.created_by,
      created_at: record.created_at,
      updated_at: record.updated_at,
    };
  }

  /** Drops this process's cached lookups of the org's sources, and tells the other processes. */
  private async changed(orgId: string): Promise<void> {
    this.cache.invalidateOrg(orgId);
    await this.context.announce({ type: 'webhooks.changed', orgId });
  }

  /** Whether the rotated-out secret of `record` still verifies deliveries. */
  inGracePeriod(record: WebhookRecord): boolean {
    const expiresAt = record.previous_secret_expires_at;
    return expiresAt !== null && Date.parse(expiresAt) > this.context.clock.now().getTime();
  }

  private async load(principal: Principal, id: string): Promise<WebhookRecord> {
    const record = await this.context.storage.webhooks.get(principal.orgId, id);
    if (!record) throw notFound('Webhook');
    return record;
  }
}
