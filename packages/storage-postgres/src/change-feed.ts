/**
 * What both change feeds share: the channel and the payloads on it, the coalescing of
 * `runs.pending`, and the subscriptions an adapter ends when it closes.
 * @module
 */
import type { ChangeFeed, PublishedChange } from '@agent-platform/core';

/** The `LISTEN` / `NOTIFY` channel. */
export const CHANGE_CHANNEL = 'agent_platform_changes';

/** A change feed an adapter owns: `close()` ends its subscriptions (and its connection). */
export interface OwnedChangeFeed extends ChangeFeed {
  close(): Promise<void>;
}

/** The payload of a change: short JSON (NOTIFY takes under 8000 bytes). */
export function encodeChange(change: PublishedChange): string {
  return JSON.stringify(normalizeChange(change));
}

/** The change a payload carries; `null` for anything else (a `reset` is never taken from outside). */
export function decodeChange(payload: string | undefined): PublishedChange | null {
  if (payload === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  return normalizeChange(value);
}

/** Only the members a change has, of the types it has; `null` for something else. */
function normalizeChange(value: unknown): PublishedChange | null;
function normalizeChange(value: PublishedChange): PublishedChange;
function normalizeChange(value: unknown): PublishedChange | null {
  if (typeof value !== 'object' || value === null) return null;
  const change = value as Record<string, unknown>;
  const text = (name: string): name is string => typeof change[name] === 'string';
  switch (change.type) {
    case 'runs.pending':
      return { type: 'runs.pending' };
    case 'run.cancelled':
      return text('orgId') && text('runId') ? { type: 'run.cancelled', orgId: change.orgId as string, runId: change.runId as string } : null;
    case 'automations.changed':
      return text('orgId') && text('source') ? { type: 'automations.changed', orgId: change.orgId as string, source: change.source as string } : null;
    case 'webhooks.changed':
      return text('orgId') ? { type: 'webhooks.changed', orgId: change.orgId as string } : null;
    case 'github-links.changed':
      return { type: 'github-links.changed' };
    case 'conversation.events':
      return text('conversationId') && Number.isInteger(change.seq)
        ? { type: 'conversation.events', conversationId: change.conversationId as string, seq: change.seq as number }
        : null;
    case 'conversation.control':
      return text('conversationId') ? { type: 'conversation.control', conversationId: change.conversationId as string } : null;
    default:
      return null;
  }
}

/**
 * `publish` through `send`, except that a `runs.pending` sent while another is in flight is
 * folded into at most one that follows it: every executor claims everything due on each wake-up,
 * so a burst of new runs needs one, not one per run.
 */
export function coalescePending(send: (change: PublishedChange) => Promise<void>): ChangeFeed['publish'] {
  let inFlight: Promise<void> | undefined;
  let trailing: Promise<void> | undefined;
  const sendPending = (): Promise<void> => {
    const sent = send({ type: 'runs.pending' }).finally(() => {
      if (inFlight === sent) inFlight = undefined;
    });
    inFlight = sent;
    return sent;
  };
  return (change) => {
    if (change.type !== 'runs.pending') return send(change);
    if (!inFlight) return sendPending();
    trailing ??= inFlight
      .catch(() => undefined)
      .then(() => {
        trailing = undefined;
        return sendPending();
      });
    return trailing;
  };
}

/** The subscriptions of one adapter, so that closing it stops them all. */
export class Subscriptions {
  private readonly stops = new Set<() => Promise<void>>();

  /** `stop` as the function `subscribe` resolves with: also forgotten here once called. */
  add(stop: () => Promise<void>): () => Promise<void> {
    let stopped = false;
    const once = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      this.stops.delete(once);
      await stop();
    };
    this.stops.add(once);
    return once;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.stops].map((stop) => stop()));
  }
}
