/**
 * A run's events as they are written: the run's events endpoint (readable by anyone in the run's
 * org, so a shared link shows the whole story), read page by page, then read again every few
 * seconds while the run goes. The last page is asked for again until it continues (its
 * `next_page_id`), so nothing written meanwhile is missed and nothing is shown twice.
 */
import type { ConversationEvent } from '@agent-platform/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { LIVE_POLL_MS } from '../hooks.js';
import { useClient } from '../session.js';

/** The run's events so far; mount it once per run (keyed by the run's id): what it holds is that run's. */
export function useRunEvents(runId: string, live: boolean): { events: ConversationEvent[]; error: unknown; loaded: boolean } {
  const client = useClient();
  const [events, setEvents] = useState<ConversationEvent[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [loaded, setLoaded] = useState(false);
  /** Where the run's events were last read: the page to read next, and the last seq held. */
  const position = useRef<{ pageId: string | undefined; lastSeq: number }>({ pageId: undefined, lastSeq: -1 });
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const at = position.current;
      try {
        for (;;) {
          const page = await client.automations.runEvents(runId, at.pageId ? { page_id: at.pageId, limit: 100 } : { limit: 100 }, {
            signal: controller.signal,
          });
          const fresh = page.items.filter((event) => event.seq > at.lastSeq);
          const last = fresh.at(-1);
          if (last) {
            at.lastSeq = last.seq;
            setEvents((list) => [...list, ...fresh]);
          }
          if (!page.next_page_id) break;
          at.pageId = page.next_page_id;
        }
        setError(undefined);
        setLoaded(true);
      } catch (caught) {
        if (!controller.signal.aborted) setError(caught);
      }
      // A finished run is read once more (its last events), then no more.
      if (live && !controller.signal.aborted) timer = setTimeout(read, LIVE_POLL_MS);
    };
    void read();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [client, runId, live]);
  return { events, error, loaded };
}
