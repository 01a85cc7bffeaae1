/**
 * Live conversation events for streams (SSE, WebSocket): each watcher gets the conversation's
 * stored events from a `seq` on, in order, each once, then every new one as it is stored — in
 * this process or any other sharing the storage (the change feed's `conversation.events` wakes
 * it; a `reset` makes every watcher read again). Events always come from storage, so a stream
 * never shows what was not stored, and a slow watcher only falls behind, never skips.
 * @module
 */
import type { StorageAdapter } from '../ports/storage.js';
import type { ConversationEvent } from '../schemas/app-conversation.js';
import { encodeSeqPage } from '../storage/paging.js';

export type EventListener = (event: ConversationEvent) => void;

interface Watcher {
  conversationId: string;
  /** The next seq to deliver. */
  next: number;
  listener: EventListener;
  /** A read is under way; `again` asks for one more after it. */
  reading: boolean;
  again: boolean;
  stopped: boolean;
}

const PAGE = 100;

export class ConversationEventWatchers {
  private readonly byConversation = new Map<string, Set<Watcher>>();

  constructor(private readonly storage: StorageAdapter) {}

  /** Starts delivering events with `seq >= fromSeq`; returns the function that stops it. */
  watch(conversationId: string, fromSeq: number, listener: EventListener): () => void {
    const watcher: Watcher = { conversationId, next: Math.max(0, fromSeq), listener, reading: false, again: false, stopped: false };
    let set = this.byConversation.get(conversationId);
    if (!set) {
      set = new Set();
      this.byConversation.set(conversationId, set);
    }
    set.add(watcher);
    void this.read(watcher);
    return () => {
      watcher.stopped = true;
      set.delete(watcher);
      if (set.size === 0) this.byConversation.delete(conversationId);
    };
  }

  /** New events were stored in this conversation (`seq` is the newest, when known). */
  notify(conversationId: string, seq?: number): void {
    for (const watcher of this.byConversation.get(conversationId) ?? []) {
      if (seq === undefined || seq >= watcher.next) void this.read(watcher);
    }
  }

  /** Changes may have been missed: every watcher reads again. */
  notifyAll(): void {
    for (const conversationId of this.byConversation.keys()) this.notify(conversationId);
  }

  private async read(watcher: Watcher): Promise<void> {
    if (watcher.reading) {
      watcher.again = true;
      return;
    }
    watcher.reading = true;
    try {
      do {
        watcher.again = false;
        for (;;) {
          const page = await this.storage.conversations.listEvents(watcher.conversationId, { limit: PAGE, pageId: encodeSeqPage(watcher.next) });
          for (const event of page.items) {
            if (watcher.stopped) return;
            if (event.seq < watcher.next) continue;
            watcher.next = event.seq + 1;
            watcher.listener(event);
          }
          if (page.items.length < PAGE) break;
        }
      } while (watcher.again && !watcher.stopped);
    } catch {
      // Storage failed: the next notification (or a reset) reads again from where it stopped.
    } finally {
      watcher.reading = false;
    }
  }
}
