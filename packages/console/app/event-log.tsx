/**
 * A conversation's events, live: the client SDK's Server-Sent Events stream
 * (`client.conversations.stream`), which yields the stored events and then each new one as it is
 * stored, reconnecting without loss. A `role="log"` region, so new events are announced.
 */
import type { ConversationEvent } from '@agent-platform/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ActionRisk } from './action-risk.js';
import { ErrorNotice, Time } from './components.js';
import { formatNumber } from './format.js';
import { useClient } from './session.js';

export function EventLog({ conversationId, onEvent }: { conversationId: string; onEvent?: (event: ConversationEvent) => void }) {
  const client = useClient();
  const [events, setEvents] = useState<ConversationEvent[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [connected, setConnected] = useState(false);
  const logRef = useRef<HTMLDivElement>(null);
  /** Whether the log shows its end: then it follows new events, else it stays where the reader is. */
  const atEnd = useRef(true);
  useEffect(() => {
    const log = logRef.current;
    if (log && atEnd.current) log.scrollTop = log.scrollHeight;
  }, [events.length]);
  useEffect(() => {
    const controller = new AbortController();
    setEvents([]);
    setError(undefined);
    void (async () => {
      try {
        setConnected(true);
        for await (const event of client.conversations.stream(conversationId, { signal: controller.signal })) {
          setEvents((list) => [...list, event]);
          onEvent?.(event);
        }
      } catch (caught) {
        if (!controller.signal.aborted) setError(caught);
      } finally {
        if (!controller.signal.aborted) setConnected(false);
      }
    })();
    return () => controller.abort();
    // `onEvent` is left out on purpose: a new callback on each render must not restart the stream.
  }, [client, conversationId]);
  return (
    <section aria-labelledby="events-title" class="event-log">
      <h2 id="events-title">Events</h2>
      <p class="muted">
        {formatNumber(events.length)} {events.length === 1 ? 'event' : 'events'}
        {connected && !error ? ' · live' : ''}
      </p>
      <ErrorNotice error={error} context="The event stream stopped" />
      <div
        role="log"
        aria-label="Conversation events"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls on its own; keyboard users need to focus it to scroll it (WCAG 2.1.1, axe scrollable-region-focusable)
        tabIndex={0}
        ref={logRef}
        onScroll={(event) => {
          const log = event.currentTarget as HTMLDivElement;
          atEnd.current = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
        }}
      >
        {events.length === 0 ? (
          <p class="muted">No events yet.</p>
        ) : (
          <ol>
            {events.map((event) => (
              <li key={event.id} class={`event event-${event.source}`}>
                <span class="event-meta">
                  <span class="event-kind">{event.kind}</span> from {event.source} · <Time value={event.created_at} />
                  <ActionRisk event={event} />
                </span>
                <span class="event-text">{textOf(event)}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}

const MAX_TEXT = 2_000;

/** The event in words: its message (a one-line rendering for structured events), else its data. */
function textOf(event: ConversationEvent): string {
  const text = event.message ?? (event.data ? JSON.stringify(event.data) : '');
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}
