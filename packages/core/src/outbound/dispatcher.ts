/**
 * Sends stored outbound messages. Messages are claimed from storage under a lease,
 * as executors claim runs — so any number of processes send without sending one message twice,
 * and a message whose sender died is taken again once its lease lapses — then signed per
 * Standard Webhooks and POSTed. Each attempt is logged on the message; a failed one is retried
 * on the backoff schedule until it succeeds or the schedule runs out. A subscription that keeps
 * failing (see `disableAfter`) is disabled, and its org is told with `subscription.disabled`.
 * @module
 */
import { signatureHeaders } from '../signatures/signing.js';
import type { OutboundAttempt, OutboundMessageRecord, SubscriptionRecord } from '../schemas/subscription.js';
import type { ServiceContext } from '../kernel/context.js';
import type { OutboundEvents } from './outbound-events.js';
import type { ResolvedOutboundOptions } from './options.js';
import { nextAttemptAt } from './retry-schedule.js';
import { sendOutbound, type OutboundResponse } from './sender.js';
import { toSubscriptionView } from './subscription-view.js';
import { contextOf, failSpan, inSpan, SpanKind, traceparentOf } from '../telemetry/tracing.js';

/** Attempts kept on a message: the oldest go first. */
export const MAX_ATTEMPTS_KEPT = 50;

const USER_AGENT = 'agent-platform-webhooks/1';

export class OutboundDispatcher {
  readonly owner: string;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<number> | null = null;
  private again = false;
  private running = false;

  constructor(
    private readonly context: ServiceContext,
    private readonly events: OutboundEvents,
    private readonly options: ResolvedOutboundOptions,
  ) {
    this.owner = context.ids.newId('snd');
    events.onPending(() => this.notify());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => this.notify(), this.options.pollIntervalMs);
    this.timer.unref();
    this.notify();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** Messages may be due: look now rather than at the next poll. */
  notify(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.drain().finally(() => {
      this.ticking = null;
      if (this.again && this.running) {
        this.again = false;
        this.notify();
      }
    });
  }

  private async drain(): Promise<number> {
    let sent = 0;
    try {
      // Batches until nothing more is due; the poll and wake-ups come back for later ones.
      for (;;) {
        const handled = await this.tick();
        sent += handled;
        if (handled < this.options.concurrency || !this.running) return sent;
      }
    } catch (error) {
      this.context.logger.warn({ kind: 'outbound', err: (error as Error).message }, 'outbound messages not claimed');
      return sent;
    }
  }

  /**
   * Claims the messages due now (up to `concurrency`) and makes one attempt at each, in
   * parallel; answers how many it handled. Exposed so tests drive it with a fake clock.
   */
  async tick(): Promise<number> {
    const now = this.context.clock.now();
    const claimed = await this.context.storage.outboundMessages.claimDue({
      owner: this.owner,
      max: this.options.concurrency,
      // Long enough that a slow subscriber's attempt ends before another sender may take it.
      leaseMs: this.options.timeoutMs + 30_000,
      now,
    });
    await Promise.all(claimed.map((message) => this.attempt(message)));
    return claimed.length;
  }

  private async attempt(message: OutboundMessageRecord): Promise<void> {
    const subscription = await this.context.storage.subscriptions.get(message.org_id, message.subscription_id);
    if (!subscription?.enabled) {
      const detail = subscription ? 'the subscription is disabled' : 'the subscription was deleted';
      await this.settle(message, { status: 'cancelled', detail, next_attempt_at: null });
      return;
    }
    const number = message.attempt + 1;
    const started = performance.now();
    const at = this.context.clock.now();
    const response = await this.postInSpan(subscription, message, number, at);
    const entry: OutboundAttempt = {
      attempt: number,
      at: at.toISOString(),
      status_code: response.statusCode,
      latency_ms: Math.max(0, Math.round(performance.now() - started)),
      error: response.error,
    };
    const attempts = [...message.attempts, entry].slice(-MAX_ATTEMPTS_KEPT);
    const now = this.context.clock.now();
    const { metrics } = this.context.telemetry;
    if (response.error === null) {
      metrics.outboundAttempt('delivered');
      await this.settle(message, { status: 'delivered', attempt: number, attempts, detail: null, next_attempt_at: null });
      await this.succeeded(subscription, now);
      return;
    }
    const next = nextAttemptAt(number, now, this.options.retryDelaysMs, this.options.random);
    metrics.outboundAttempt(next ? 'retry' : 'failed');
    await this.settle(
      message,
      next
        ? { attempt: number, attempts, detail: response.error, next_attempt_at: next.toISOString() }
        : { status: 'failed', attempt: number, attempts, detail: `gave up after ${number} attempts: ${response.error}`, next_attempt_at: null },
    );
    this.context.logger.warn(
      {
        kind: 'outbound',
        messageId: message.id,
        subscriptionId: subscription.id,
        attempt: number,
        error: response.error,
        nextAttemptAt: next?.toISOString() ?? null,
      },
      next ? 'outbound attempt failed' : 'outbound message failed',
    );
    await this.failed(subscription, now, response.error);
  }

  /**
   * One attempt's span (`agent_platform.outbound.send`, a client span in the trace of the work
   * that emitted the event), whose context the request carries as its `traceparent`.
   */
  private postInSpan(subscription: SubscriptionRecord, message: OutboundMessageRecord, attempt: number, at: Date): Promise<OutboundResponse> {
    const attributes: Record<string, string | number> = {
      'agent_platform.outbound.message.id': message.id,
      'agent_platform.outbound.subscription.id': subscription.id,
      'agent_platform.outbound.event_type': message.event_type,
      'agent_platform.outbound.attempt': attempt,
      'http.request.method': 'POST',
    };
    // The host only: a subscriber's URL may carry a token in its path or query.
    const host = URL.canParse(subscription.url) ? new URL(subscription.url).hostname : null;
    if (host) attributes['server.address'] = host;
    return inSpan(
      this.context.telemetry.tracer,
      'agent_platform.outbound.send',
      { parent: contextOf(message.trace_parent), kind: SpanKind.CLIENT, attributes },
      async (span) => {
        const response = await this.post(subscription, message, at, traceparentOf());
        if (response.statusCode !== null) span.setAttribute('http.response.status_code', response.statusCode);
        if (response.error !== null) failSpan(span, new Error('the subscriber did not accept the message'));
        return response;
      },
    );
  }

  private post(subscription: SubscriptionRecord, message: OutboundMessageRecord, at: Date, traceParent: string | null): Promise<OutboundResponse> {
    const body = JSON.stringify(message.payload);
    let secret: string;
    try {
      secret = this.context.secrets.open(subscription.secret_encrypted);
    } catch {
      return Promise.resolve({ statusCode: null, error: 'the signing secret cannot be opened with the configured keys' });
    }
    const headers = signatureHeaders({ scheme: 'standard-webhooks', secret, body, now: at, id: message.id });
    return sendOutbound({
      url: subscription.url,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, ...(traceParent ? { traceparent: traceParent } : {}) },
      body,
      timeoutMs: this.options.timeoutMs,
      allowPrivate: this.options.allowPrivateAddresses,
    });
  }

  /** Writes the attempt's outcome, if this sender still holds the message (a replay or lapse may have moved it). */
  private async settle(message: OutboundMessageRecord, patch: Parameters<ServiceContext['storage']['outboundMessages']['transition']>[3]): Promise<void> {
    await this.context.storage.outboundMessages.transition(
      message.org_id,
      message.id,
      { from: ['pending'], leaseOwner: this.owner },
      { ...patch, updated_at: this.context.clock.now().toISOString(), lease_owner: null, lease_expires_at: null },
    );
  }

  private async succeeded(subscription: SubscriptionRecord, now: Date): Promise<void> {
    const current = await this.context.storage.subscriptions.get(subscription.org_id, subscription.id);
    if (!current) return;
    await this.context.storage.subscriptions.update({ ...current, consecutive_failures: 0, failing_since: null, last_success_at: now.toISOString() });
  }

  private async failed(subscription: SubscriptionRecord, now: Date, error: string): Promise<void> {
    const current = await this.context.storage.subscriptions.get(subscription.org_id, subscription.id);
    if (!current?.enabled) return;
    const failures = current.consecutive_failures + 1;
    const since = current.failing_since ?? now.toISOString();
    const { failures: limit, ms } = this.options.disableAfter;
    const disable = failures >= limit && now.getTime() - Date.parse(since) >= ms;
    const updated: SubscriptionRecord = {
      ...current,
      consecutive_failures: failures,
      failing_since: since,
      ...(disable
        ? {
            enabled: false,
            disabled_reason: `disabled after ${failures} failed attempts in a row since ${since} (last: ${error})`,
            updated_at: now.toISOString(),
          }
        : {}),
    };
    await this.context.storage.subscriptions.update(updated);
    if (!disable) return;
    this.events.invalidate(current.org_id);
    this.context.logger.warn({ kind: 'outbound', subscriptionId: current.id, orgId: current.org_id, failures }, 'subscription disabled');
    this.events.emit(current.org_id, 'subscription.disabled', toSubscriptionView(updated));
  }
}
