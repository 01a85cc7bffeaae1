/**
 * Shared checks for the cursor-paged, newest-first `listByUser` of sandboxes, conversations and
 * start tasks: ordering (instants, then id descending in code-unit order), per-user scoping, and
 * paging through ties without repeating or skipping a record.
 * @module
 */
import { expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import type { CursorOptions, CursorPage, StorageAdapter } from '@agent-platform/core';
import { fixtureTime, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

/** How many pages `collectPages` follows before it gives up on a cursor that never ends. */
const MAX_PAGES = 100;

/** Follows `nextPageId` from the first page to the last; returns every page. */
export async function collectPages<T>(list: (options: CursorOptions) => Promise<CursorPage<T>>, limit: number): Promise<CursorPage<T>[]> {
  const pages: CursorPage<T>[] = [];
  let pageId: string | undefined;
  do {
    const page = await list(pageId === undefined ? { limit } : { limit, pageId });
    pages.push(page);
    pageId = page.nextPageId ?? undefined;
    if (page.nextPageId !== null) expect(typeof page.nextPageId).toBe('string');
  } while (pageId !== undefined && pages.length < MAX_PAGES);
  expect(pages.length).toBeLessThan(MAX_PAGES);
  return pages;
}

/** Checks the page sizes: every page but the last is full, and the last is not empty unless it is the only one. */
export function expectPageShape<T>(pages: readonly CursorPage<T>[], limit: number, total: number): void {
  expect(pages).toHaveLength(Math.max(1, Math.ceil(total / limit)));
  pages.forEach((page, n) => {
    const last = n === pages.length - 1;
    expect(page.items).toHaveLength(last ? total - limit * n : limit);
    expect(page.nextPageId === null).toBe(last);
  });
}

/** Asserts that `promise` rejects with the validation error of an unusable `page_id`. */
export async function expectInvalidPageId(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PlatformError);
  expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
}

/** Page ids no adapter hands out. */
export const GARBLED_PAGE_IDS = ['not a page id', '%%%', '{"x":1}', 'eyJ4IjoxfQ', '-1', 'null'] as const;

interface UserOwned {
  id: string;
  created_by_user_id: string;
  created_at: string;
}

/** How the shared checks reach one repository. */
export interface UserListing<R extends UserOwned> {
  /** `sandboxes`, `conversations`, ... — used in test titles. */
  readonly name: string;
  make(overrides: Partial<R>): R;
  insert(adapter: StorageAdapter, record: R): Promise<void>;
  list(adapter: StorageAdapter, userId: string, options: CursorOptions): Promise<CursorPage<R>>;
}

/** Registers the `listByUser` tests of a user-owned, newest-first repository. */
export function itListsByUserNewestFirst<R extends UserOwned>(ctx: SuiteContext, listing: UserListing<R>): void {
  const { name } = listing;

  it(`${name}.listByUser of a user without any is one empty page`, async () => {
    expect(await listing.list(ctx.adapter, uniqueId('user'), { limit: 10 })).toEqual({ items: [], nextPageId: null });
  });

  it(`${name}.listByUser returns only the user's records, newest first, then by id descending (code-unit order)`, async () => {
    const userId = uniqueId('user');
    const base = uniqueId(name);
    const mine = (suffix: string, seconds: number): R =>
      listing.make({ created_by_user_id: userId, id: `${base}-${suffix}`, created_at: fixtureTime(seconds) } as Partial<R>);
    const early = mine('a', 10);
    // In code-unit order 'B' (0x42) sorts before 'a' (0x61) and 'b'; a locale collation would not.
    const tieB = mine('B', 20);
    const tieA = mine('a2', 20);
    const tieC = mine('c', 20);
    const late = mine('d', 30);
    const otherUser = listing.make({ created_at: fixtureTime(25) } as Partial<R>);
    for (const record of [tieA, otherUser, late, early, tieC, tieB]) await listing.insert(ctx.adapter, record);
    expect(await listing.list(ctx.adapter, userId, { limit: 10 })).toEqual({
      items: [late, tieC, tieA, tieB, early],
      nextPageId: null,
    });
    expect(await listing.list(ctx.adapter, otherUser.created_by_user_id, { limit: 10 })).toEqual({
      items: [otherUser],
      nextPageId: null,
    });
  });

  it(`${name}.listByUser compares created_at as instants, not as text`, async () => {
    const userId = uniqueId('user');
    // As text "…:01Z" sorts after "…:01.500Z"; as instants it is half a second earlier.
    const whole = listing.make({ created_by_user_id: userId, created_at: '2025-01-01T00:00:01Z' } as Partial<R>);
    const half = listing.make({ created_by_user_id: userId, created_at: '2025-01-01T00:00:01.500Z' } as Partial<R>);
    await listing.insert(ctx.adapter, half);
    await listing.insert(ctx.adapter, whole);
    expect((await listing.list(ctx.adapter, userId, { limit: 10 })).items).toEqual([half, whole]);
  });

  it(`${name}.listByUser pages through ties with nextPageId, never repeating or skipping a record`, async () => {
    const userId = uniqueId('user');
    const base = uniqueId(name);
    // Runs of equal instants, so page boundaries fall inside ties; ids out of insertion order.
    const seconds = [50, 40, 40, 40, 40, 30, 20, 20, 10];
    const suffixes = ['e', 'x', 'B', 'm', 'a', 'q', 'z', 'A', 'k'];
    const records = seconds.map((at, n) =>
      listing.make({ created_by_user_id: userId, id: `${base}-${suffixes[n]}`, created_at: fixtureTime(at) } as Partial<R>),
    );
    // Someone else's records at the same instants must not leak into the pages.
    const others = seconds.map((at) => listing.make({ created_at: fixtureTime(at) } as Partial<R>));
    for (const record of [...records].reverse()) await listing.insert(ctx.adapter, record);
    for (const record of others) await listing.insert(ctx.adapter, record);
    const expected = [...records].sort((a, b) => {
      const age = Date.parse(b.created_at) - Date.parse(a.created_at);
      return age !== 0 ? age : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
    });
    for (const limit of [1, 2, 3, 4, 9, 10]) {
      const pages = await collectPages((options) => listing.list(ctx.adapter, userId, options), limit);
      expectPageShape(pages, limit, records.length);
      expect(pages.flatMap((page) => page.items)).toEqual(expected);
    }
  });

  it(`${name}.listByUser rejects a page id it did not hand out with a VALIDATION_FAILED PlatformError`, async () => {
    const userId = uniqueId('user');
    await listing.insert(ctx.adapter, listing.make({ created_by_user_id: userId } as Partial<R>));
    for (const pageId of GARBLED_PAGE_IDS) {
      await expectInvalidPageId(listing.list(ctx.adapter, userId, { limit: 10, pageId }));
    }
  });
}
