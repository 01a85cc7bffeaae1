/**
 * Reading a conversation's event log, whose seqs run from 0 without gaps: from a seq to the end,
 * and its length without reading it.
 * @module
 */
import type { StorageAdapter } from '../ports/storage.js';
import type { ConversationEvent } from '../schemas/app-conversation.js';
import { encodeSeqPage } from './paging.js';

/** The conversation's events with `seq >= fromSeq`, in order. */
export async function readEventsFrom(storage: StorageAdapter, conversationId: string, fromSeq = 0): Promise<ConversationEvent[]> {
  const events: ConversationEvent[] = [];
  let pageId: string | undefined = encodeSeqPage(fromSeq);
  while (pageId !== undefined) {
    const page = await storage.conversations.listEvents(conversationId, { limit: 100, pageId });
    events.push(...page.items);
    pageId = page.nextPageId ?? undefined;
  }
  return events;
}

/**
 * The `seq` the next stored event will have: the number of events. Found with one-event pages
 * (an event page id is a seq), by doubling and then halving: about 2·log2(n) small reads.
 */
export async function nextEventSeq(storage: StorageAdapter, conversationId: string): Promise<number> {
  const exists = async (seq: number) => (await storage.conversations.listEvents(conversationId, { limit: 1, pageId: encodeSeqPage(seq) })).items.length > 0;
  if (!(await exists(0))) return 0;
  // Invariant: `low` exists, `high` does not.
  let low = 0;
  let high = 1;
  while (await exists(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle)) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * The agent's final answer in a conversation: its `finish` message, or else its last message; `""`
 * before it gave one. Stored events are scrubbed of secrets already.
 */
export async function readFinalResponse(storage: StorageAdapter, conversationId: string): Promise<string> {
  return finalResponseOf(await readEventsFrom(storage, conversationId));
}

export function finalResponseOf(events: readonly ConversationEvent[]): string {
  const last = events.findLast(
    (event) =>
      (event.kind === 'ActionEvent' && (event.data as { tool_name?: unknown } | null)?.tool_name === 'finish') ||
      (event.kind === 'MessageEvent' && event.source === 'agent'),
  );
  if (!last) return '';
  if (last.kind === 'MessageEvent') return last.message ?? '';
  const action = (last.data as { action?: { message?: unknown } }).action;
  return typeof action?.message === 'string' ? action.message : '';
}
