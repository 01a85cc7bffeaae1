/**
 * Pages over the ordered indexes: offset pages (`ListOptions`) and keyset pages
 * (`CursorOptions`), whose tokens and limit check are core's, so a page id means the same thing
 * whichever adapter handed it out. Every page is copied on the way out.
 * @module
 */
import { checkPageLimit, decodePageCursor, decodeSeqPage, encodePageCursor, encodeSeqPage } from '@agent-platform/core/adapter-kit';
import type { ConversationEvent, CursorOptions, CursorPage, ListOptions, ListResult } from '@agent-platform/core';
import type { PageCursor } from '@agent-platform/core/adapter-kit';
import { cloneJson } from './clone-json.js';
import { instantOf, type AppendLogView, type OrderedRows } from '../table/index.js';

/** Rows `offset` to `offset + limit` of a group, and the group's size. */
export function offsetPage<V>(rows: OrderedRows<V>, { limit, offset }: ListOptions): ListResult<V> {
  return { items: rows.page(offset, limit).map(cloneJson), total: rows.size };
}

/**
 * A newest-first keyset page: the rows after the cursor in reading order (lower instant, or the
 * same instant and a lower id), found by binary search. Instants, not the stored strings, are
 * compared, as the index orders them: two spellings of one instant sort together.
 */
export function cursorPage<V extends { created_at: string; id: string }>(rows: OrderedRows<V>, options: CursorOptions): CursorPage<V> {
  const limit = checkPageLimit(options.limit);
  const start = options.pageId === undefined ? 0 : positionAfter(rows, decodePageCursor(options.pageId));
  const items = rows.page(start, limit);
  const last = items.at(-1);
  return {
    items: items.map(cloneJson),
    nextPageId: last !== undefined && start + items.length < rows.size ? encodePageCursor(last) : null,
  };
}

/**
 * Where a newest-first group continues after `cursor`: the first row below it in reading order
 * (a lower instant, or the same instant and a lower id), by binary search.
 */
export function positionAfter<V extends { created_at: string; id: string }>(rows: OrderedRows<V>, cursor: PageCursor): number {
  const cursorAt = instantOf(cursor.createdAt);
  const isAfter = (row: V): boolean => {
    const at = instantOf(row.created_at);
    return at < cursorAt || (at === cursorAt && row.id < cursor.id);
  };
  let start = 0;
  let high = rows.size;
  while (start < high) {
    const middle = (start + high) >>> 1;
    const row = rows.at(middle);
    if (row !== undefined && isAfter(row)) high = middle;
    else start = middle + 1;
  }
  return start;
}

/** A conversation's events from the `seq` named by `pageId`, in `seq` order. */
export function eventsPage(log: AppendLogView<ConversationEvent>, conversationId: string, options: CursorOptions): CursorPage<ConversationEvent> {
  const limit = checkPageLimit(options.limit);
  const start = options.pageId === undefined ? 0 : decodeSeqPage(options.pageId);
  const size = log.size(conversationId);
  const items = log.slice(conversationId, start, start + limit);
  const end = start + items.length;
  return { items: items.map(cloneJson), nextPageId: items.length > 0 && end < size ? encodeSeqPage(end) : null };
}
