/**
 * The bridge from an `EventSink` to the port's async iterable of `AgentEvent`s. A write waits
 * until the consumer has taken its event and asked for the next, as a `yield` in the generator
 * would: events reach the consumer as they happen, in order, with back-pressure. When the
 * consumer stops early (`return()` on the iterator), the write under way and any later one fail
 * with `SinkClosedError`, so the run unwinds through its `finally` blocks (closing MCP servers,
 * clearing its timer) before `return()` resolves. An error the run throws reaches the consumer.
 * @module
 */
import type { AgentEvent } from '@agent-platform/core';
import { agentNoteDraft } from '@agent-platform/core';
import { SinkClosedError, type EventSink } from './event-sink.js';

interface Written {
  event: AgentEvent;
  taken(): void;
  dropped(error: Error): void;
}

/** The events that `produce` writes to its sink, as an async iterable; nothing runs until the first `next()`. */
export async function* streamEvents(produce: (sink: EventSink) => Promise<void>): AsyncGenerator<AgentEvent, void, undefined> {
  const channel = new Channel();
  const done = produce(channel.sink).then(
    () => channel.end(null),
    (error: unknown) => channel.end({ error }),
  );
  try {
    for (let written = await channel.next(); written; written = await channel.next()) {
      yield written.event;
      channel.taken();
    }
    channel.throwIfFailed();
  } finally {
    channel.close();
    await done;
  }
}

class Channel {
  /** Written and not yet taken; the first is the one the consumer holds. */
  private readonly queue: Written[] = [];
  private wake: (() => void) | null = null;
  private ending: { error: unknown } | null | undefined;
  private closed = false;
  private finished = false;

  readonly sink: EventSink = {
    record: (entry) => this.write({ type: 'record', id: entry.id, event: entry.event }),
    note: (data) => this.write({ type: 'record', event: agentNoteDraft(data) }),
    metrics: (metrics) => this.write({ type: 'metrics', metrics }),
    finish: (outcome) => this.write({ type: 'finished', outcome }),
  };

  private write(event: AgentEvent): Promise<void> {
    if (this.closed) return Promise.reject(new SinkClosedError());
    if (this.finished) return Promise.reject(new Error(`the run reported ${event.type} after its outcome`));
    if (event.type === 'finished') this.finished = true;
    return new Promise<void>((taken, dropped) => {
      this.queue.push({ event, taken, dropped });
      this.signal();
    });
  }

  /** The next event written, or null once the run has ended and every event was taken. */
  async next(): Promise<Written | null> {
    while (this.queue.length === 0 && this.ending === undefined) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.queue[0] ?? null;
  }

  /** The consumer asked for the next event: the write of the one it holds resolves. */
  taken(): void {
    this.queue.shift()?.taken();
  }

  end(ending: { error: unknown } | null): void {
    this.ending = ending;
    this.signal();
  }

  throwIfFailed(): void {
    if (this.ending) throw this.ending.error;
    if (!this.finished) throw new Error('the agent run ended without an outcome');
  }

  /** The consumer is gone: writes fail from now on, the one it held included. */
  close(): void {
    this.closed = true;
    for (const written of this.queue.splice(0)) written.dropped(new SinkClosedError());
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
