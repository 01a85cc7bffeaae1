/**
 * Fan-out of platform events to subscribers: each event becomes one stored
 * `pending` message per enabled subscription of the org that wants its type, which the
 * {@link OutboundDispatcher} then sends. Every delivery asks who subscribes, so the answer is
 * cached per org for a second (the same freshness matching gives automations across processes);
 * this process's own changes drop it at once. An org with no subscribers costs a map lookup.
 * @module
 */
import { traceparentOf } from '../telemetry/tracing.js';
import type { OutboundEventType, OutboundMessageRecord, SubscriptionRecord } from '../schemas/subscription.js';
import type { OutboundEventSink, ServiceContext } from '../kernel/context.js';

/** Tries at storing an event's messages, and the wait before the second (doubled each time: about 6 s in all). */
const STORE_ATTEMPTS = 6;
const STORE_BACKOFF_MS = 200;

const CACHE_MS = 1000;
/** Orgs cached at most; past it the cache starts over. */
const MAX_CACHED_ORGS = 10_000;

/** What the fan-out needs: it is built before the service context, which holds it. */
export type OutboundEventsContext = Pick<ServiceContext, 'storage' | 'clock' | 'ids' | 'logger'>;

export class OutboundEvents implements OutboundEventSink {
  private readonly cache = new Map<string, { at: number; subscriptions: SubscriptionRecord[] }>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pendingListeners: (() => void)[] = [];

  constructor(private readonly context: OutboundEventsContext) {}

  /** Calls `listener` whenever messages are stored (or replayed), so a sender in this process starts at once. */
  onPending(listener: () => void): void {
    this.pendingListeners.push(listener);
  }

  /** Messages are waiting to be sent: tells the listeners. */
  notifyPending(): void {
    for (const listener of this.pendingListeners) listener();
  }

  /**
   * Stores a message of `type` for every subscriber that wants it. Never throws and is not
   * awaited by callers: an event's own work never waits for, or fails with, its fan-out (errors
   * are logged). {@link flush} waits for those under way.
   */
  emit(orgId: string, type: OutboundEventType, data: Record<string, unknown>): void {
    // The common case on ingest's path — an org known to have no subscriber for this type — stays synchronous.
    const cached = this.cache.get(orgId);
    if (cached && Date.now() - cached.at < CACHE_MS && !cached.subscriptions.some((subscription) => subscription.event_types.includes(type))) return;
    const work = this.storeRetrying(orgId, type, data, traceparentOf()).catch((error: unknown) => {
      this.context.logger.warn({ kind: 'outbound', orgId, type, err: (error as Error).message }, 'outbound event not stored');
    });
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Resolves when every emit started so far has stored its messages (or failed). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** The org's subscriptions changed here: the next event reads them afresh. */
  invalidate(orgId: string): void {
    this.cache.delete(orgId);
  }

  /**
   * Stores the messages, asking again while the storage is briefly away (a database restarting
   * or failing over takes seconds): a run's final message is not lost to a blip.
   */
  private async storeRetrying(orgId: string, type: OutboundEventType, data: Record<string, unknown>, traceParent: string | null): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store(orgId, type, data, traceParent);
      } catch (error) {
        if (attempt >= STORE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, STORE_BACKOFF_MS * 2 ** (attempt - 1)).unref());
      }
    }
  }

  private async store(orgId: string, type: OutboundEventType, data: Record<string, unknown>, traceParent: string | null): Promise<void> {
    const subscribers = (await this.subscriptionsOf(orgId)).filter((subscription) => subscription.event_types.includes(type));
    if (subscribers.length === 0) return;
    const now = this.context.clock.now().toISOString();
    const payload = { type, timestamp: now, data };
    const messages: OutboundMessageRecord[] = subscribers.map((subscription) => ({
      id: this.context.ids.newId('msg'),
      org_id: orgId,
      subscription_id: subscription.id,
      event_type: type,
      payload,
      status: 'pending',
      attempt: 0,
      next_attempt_at: now,
      detail: null,
      attempts: [],
      created_at: now,
      updated_at: now,
      lease_owner: null,
      lease_expires_at: null,
      ...(traceParent !== null ? { trace_parent: traceParent } : {}),
    }));
    await this.context.storage.outboundMessages.insertMany(messages);
    this.notifyPending();
  }

  private async subscriptionsOf(orgId: string): Promise<SubscriptionRecord[]> {
    const now = Date.now();
    const cached = this.cache.get(orgId);
    if (cached && now - cached.at < CACHE_MS) return cached.subscriptions;
    const subscriptions = await this.context.storage.subscriptions.listEnabled(orgId);
    if (this.cache.size >= MAX_CACHED_ORGS) this.cache.clear();
    this.cache.set(orgId, { at: now, subscriptions });
    return subscriptions;
  }
}
