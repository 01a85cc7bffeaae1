/**
 * Async iterators over paged lists. The API has three kinds of paging: `limit`/`offset` with a
 * `total` (automations, runs, webhooks, deliveries), V1's `page_id` cursors (sandboxes,
 * conversations, events, start tasks) and the audit log's `after` (the last `seq` read); each is
 * walked to the end, one page at a time, so memory stays at one page whatever the list's length.
 * @module
 */
import type { CallOptions } from '../transport/transport.js';

export interface IterateOptions {
  /** Records per request, 1–100 (the server's bound). Default 100. */
  pageSize?: number;
  /** Stops the walk between pages (and aborts the request in flight). */
  signal?: AbortSignal;
}

export const MAX_PAGE_SIZE = 100;

/**
 * Every record of a `limit`/`offset` list: `fetchPage` is the list call, `key` the member that
 * holds its records (`automations`, `runs`, ...). `pageSize` is checked now, before any request.
 */
export function offsetIterator<K extends string, T extends { id: string }>(
  fetchPage: (page: { limit: number; offset: number }, options: CallOptions) => Promise<{ [key in K]: T[] } & { total: number }>,
  key: K,
  { pageSize, signal }: IterateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const limit = checkPageSize(pageSize);
  const call = signal ? { signal } : {};
  return walkOffsetPages(async (size, offset) => {
    const page = await fetchPage({ limit: size, offset }, call);
    return { items: page[key], total: page.total };
  }, limit);
}

/** Every record of a V1 `page_id` list; `fetchPage` is its search call. */
export function cursorIterator<T>(
  fetchPage: (page: { limit: number; page_id?: string }, options: CallOptions) => Promise<{ items: T[]; next_page_id: string | null }>,
  { pageSize, signal }: IterateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const limit = checkPageSize(pageSize);
  const call = signal ? { signal } : {};
  return walkCursorPages((pageId) => fetchPage(pageId === undefined ? { limit } : { limit, page_id: pageId }, call));
}

function checkPageSize(pageSize: number | undefined): number {
  const size = pageSize ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new RangeError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${String(pageSize)}`);
  }
  return size;
}

/**
 * Walks a `limit`/`offset` list. Offset lists are newest first, so a record created during the
 * walk pushes older ones to later offsets: records already yielded are recognised by id and not
 * yielded twice. (A record deleted during the walk can shift a later one past the cursor; walk
 * again if that matters.)
 */
async function* walkOffsetPages<T extends { id: string }>(
  fetchPage: (limit: number, offset: number) => Promise<{ items: T[]; total: number }>,
  pageSize: number,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let offset = 0;
  for (;;) {
    const { items, total } = await fetchPage(pageSize, offset);
    for (const item of items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    offset += items.length;
    if (items.length < pageSize || offset >= total) return;
  }
}

/** Walks a V1 cursor list until `next_page_id` is null. */
async function* walkCursorPages<T>(
  fetchPage: (pageId: string | undefined) => Promise<{ items: T[]; next_page_id: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let pageId: string | undefined;
  for (;;) {
    const page = await fetchPage(pageId);
    yield* page.items;
    if (page.next_page_id === null || page.next_page_id === pageId) return;
    pageId = page.next_page_id;
  }
}

/**
 * Every entry of a list paged by a number cursor (the audit log: `after` a `seq`, answered with
 * `next_after`, `null` on the last page); `fetchPage` is its list call.
 */
export function afterIterator<T>(
  fetchPage: (page: { limit: number; after?: number }, options: CallOptions) => Promise<{ entries: T[]; next_after: number | null }>,
  { pageSize, signal }: IterateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const limit = checkPageSize(pageSize);
  const call = signal ? { signal } : {};
  return walkAfterPages((after) => fetchPage(after === undefined ? { limit } : { limit, after }, call));
}

async function* walkAfterPages<T>(
  fetchPage: (after: number | undefined) => Promise<{ entries: T[]; next_after: number | null }>,
): AsyncGenerator<T, void, undefined> {
  let after: number | undefined;
  for (;;) {
    const page = await fetchPage(after);
    yield* page.entries;
    if (page.next_after === null || page.next_after === after) return;
    after = page.next_after;
  }
}

/** Every item of an async iterable in an array (`Array.fromAsync` is Node 22+). */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
