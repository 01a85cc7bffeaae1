/**
 * Outbound-event subscriptions (`/api/automation/v1/subscriptions`): an org's
 * subscribers, the messages sent to each with every attempt, and replay. A subscription's
 * signing secret (`whsec_...`) is shown once, at create and at rotate.
 * @module
 */
import { keyActor } from '../audit/audit-log.js';
import { randomBytes } from 'node:crypto';
import { PlatformError, notFound, validationError } from '../kernel/errors.js';
import type { OutboundEvents } from './outbound-events.js';
import { subscriberUrlRefusal } from './address-policy.js';
import { toOutboundMessageView, toSubscriptionView } from './subscription-view.js';
import type { PageQuery } from '../schemas/common.js';
import type { Principal } from '../schemas/principal.js';
import {
  subscriptionCreateInputSchema,
  subscriptionUpdateInputSchema,
  type OutboundMessage,
  type OutboundMessageList,
  type OutboundMessageStatus,
  type Subscription,
  type SubscriptionList,
  type SubscriptionRecord,
  type SubscriptionWithSecret,
} from '../schemas/subscription.js';
import { parseInput } from '../kernel/validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';

/**
 * A Standard Webhooks signing secret: `whsec_` and 24 random bytes in standard base64, the form
 * the `standardwebhooks` libraries decode.
 */
export const generateSubscriptionSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export interface SubscriptionsServiceOptions {
  /** Whether subscriber URLs may name loopback, private and link-local hosts. */
  allowPrivateAddresses: boolean;
}

export class SubscriptionsService {
  constructor(
    private readonly context: ServiceContext,
    private readonly events: OutboundEvents,
    private readonly options: SubscriptionsServiceOptions,
  ) {}

  async create(principal: Principal, input: unknown): Promise<SubscriptionWithSecret> {
    const parsed = parseInput(subscriptionCreateInputSchema, input);
    this.checkUrl(parsed.url);
    const secret = generateSubscriptionSecret();
    const now = nowIso(this.context);
    const record: SubscriptionRecord = {
      id: this.context.ids.newId('sub'),
      org_id: principal.orgId,
      url: parsed.url,
      event_types: parsed.event_types,
      description: parsed.description ?? null,
      enabled: parsed.enabled,
      disabled_reason: null,
      consecutive_failures: 0,
      failing_since: null,
      last_success_at: null,
      secret_encrypted: this.context.secrets.seal(secret),
      created_at: now,
      updated_at: now,
    };
    await this.context.storage.subscriptions.insert(record);
    this.events.invalidate(principal.orgId);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'subscription.created',
      target: { type: 'subscription', id: record.id },
      details: { url: record.url, event_types: record.event_types },
    });
    return { ...toSubscriptionView(record), secret };
  }

  async list(principal: Principal, page: PageQuery): Promise<SubscriptionList> {
    const { items, total } = await this.context.storage.subscriptions.list(principal.orgId, page);
    return { subscriptions: items.map(toSubscriptionView), total };
  }

  async get(principal: Principal, id: string): Promise<Subscription> {
    return toSubscriptionView(await this.load(principal, id));
  }

  /** Any subset of url, event types, description, enabled. Enabling starts the failure count afresh. */
  async update(principal: Principal, id: string, input: unknown): Promise<Subscription> {
    const parsed = parseInput(subscriptionUpdateInputSchema, input === undefined ? {} : input);
    if (parsed.url !== undefined) this.checkUrl(parsed.url);
    const record = await this.load(principal, id);
    const enabling = parsed.enabled === true && !record.enabled;
    const updated: SubscriptionRecord = {
      ...record,
      url: parsed.url ?? record.url,
      event_types: parsed.event_types ?? record.event_types,
      description: parsed.description !== undefined ? parsed.description : record.description,
      enabled: parsed.enabled ?? record.enabled,
      ...(enabling ? { disabled_reason: null, consecutive_failures: 0, failing_since: null } : {}),
      updated_at: nowIso(this.context),
    };
    if (!(await this.context.storage.subscriptions.update(updated))) throw notFound('Subscription');
    this.events.invalidate(principal.orgId);
    const fields = Object.keys(parsed).filter((field) => (parsed as Record<string, unknown>)[field] !== undefined);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'subscription.updated',
      target: { type: 'subscription', id },
      details: { fields },
    });
    return toSubscriptionView(updated);
  }

  /** Deletes the subscription and its messages (pending ones are never sent). */
  async delete(principal: Principal, id: string): Promise<void> {
    if (!(await this.context.storage.subscriptions.delete(principal.orgId, id))) throw notFound('Subscription');
    this.events.invalidate(principal.orgId);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'subscription.deleted',
      target: { type: 'subscription', id },
      details: {},
    });
  }

  /** A new signing secret, in force at once for every message sent from now on; shown once. */
  async rotateSecret(principal: Principal, id: string): Promise<SubscriptionWithSecret> {
    const record = await this.load(principal, id);
    const secret = generateSubscriptionSecret();
    const updated: SubscriptionRecord = { ...record, secret_encrypted: this.context.secrets.seal(secret), updated_at: nowIso(this.context) };
    if (!(await this.context.storage.subscriptions.update(updated))) throw notFound('Subscription');
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'subscription.secret_rotated',
      target: { type: 'subscription', id },
      details: {},
    });
    return { ...toSubscriptionView(updated), secret };
  }

  /** The subscription's messages, newest first, each with its attempts. */
  async listMessages(principal: Principal, id: string, page: PageQuery & { status?: OutboundMessageStatus }): Promise<OutboundMessageList> {
    await this.load(principal, id);
    const { items, total } = await this.context.storage.outboundMessages.listBySubscription(principal.orgId, id, page);
    return { messages: items.map(toOutboundMessageView), total };
  }

  async getMessage(principal: Principal, id: string, messageId: string): Promise<OutboundMessage> {
    return toOutboundMessageView(await this.loadMessage(principal, id, messageId));
  }

  /**
   * Sends a message again, now: it goes back to `pending` with the same `webhook-id` (so a
   * receiver that saw it can tell), its attempts kept and counted on. 409 while it is still
   * pending, or when the subscription is disabled.
   */
  async replayMessage(principal: Principal, id: string, messageId: string): Promise<OutboundMessage> {
    const subscription = await this.load(principal, id);
    if (!subscription.enabled) throw new PlatformError('CONFLICT', 'The subscription is disabled; enable it before replaying its messages');
    await this.loadMessage(principal, id, messageId);
    const now = nowIso(this.context);
    const replayed = await this.context.storage.outboundMessages.transition(
      principal.orgId,
      messageId,
      { from: ['delivered', 'failed', 'cancelled'] },
      { status: 'pending', next_attempt_at: now, detail: null, updated_at: now, lease_owner: null, lease_expires_at: null },
    );
    if (!replayed) throw new PlatformError('CONFLICT', 'The message is still pending: it will be sent at its next attempt');
    this.events.notifyPending();
    return toOutboundMessageView(replayed);
  }

  private checkUrl(url: string): void {
    const refusal = subscriberUrlRefusal(url, this.options.allowPrivateAddresses);
    if (refusal !== null) {
      throw validationError(['body', 'url'], `must reach a public address: ${refusal} (the host can allow private addresses)`);
    }
  }

  private async load(principal: Principal, id: string): Promise<SubscriptionRecord> {
    const record = await this.context.storage.subscriptions.get(principal.orgId, id);
    if (!record) throw notFound('Subscription');
    return record;
  }

  private async loadMessage(principal: Principal, id: string, messageId: string) {
    const message = await this.context.storage.outboundMessages.get(principal.orgId, messageId);
    if (!message || message.subscription_id !== id) throw notFound('Message');
    return message;
  }
}
