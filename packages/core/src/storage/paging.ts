/**
 * Page tokens and the page-size check that every storage adapter uses for cursor pages
 * (`CursorOptions`), so that a token means the same thing whichever adapter handed it out.
 *
 * A newest-first page id names the last item of the page before — its `created_at` as stored and
 * its id, as base64url JSON — and the next page starts strictly after it in `(created_at, id)`
 * order, so inserts and deletes between pages never make one repeat or skip an item. An event
 * page id is the next `seq`, in decimal. Anything else is a VALIDATION_FAILED `PlatformError` at
 * `["query", "page_id"]` (or `["query", "limit"]`).
 * @module
 */
import { validationError, type PlatformError } from '../kernel/errors.js';

/** The timestamps records carry (zod's `z.iso.datetime()`): UTC, `Z`, any fraction of a second. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z$/;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

const SEQ = /^(0|[1-9][0-9]{0,14})$/;

/** The position a newest-first page continues after. */
export interface PageCursor {
  createdAt: string;
  id: string;
}

function invalidPageId(): PlatformError {
  return validationError(['query', 'page_id'], 'invalid page id');
}

/** `limit` if it is a positive integer; a VALIDATION_FAILED `PlatformError` otherwise. */
export function checkPageLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw validationError(['query', 'limit'], 'limit must be a positive integer');
  }
  return limit;
}

/** The page id of the page that continues after `row`. */
export function encodePageCursor(row: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id]), 'utf8').toString('base64url');
}

/** The cursor a page id names; a VALIDATION_FAILED `PlatformError` for one no adapter hands out. */
export function decodePageCursor(pageId: string): PageCursor {
  let cursor: unknown;
  if (BASE64URL.test(pageId)) {
    const bytes = Buffer.from(pageId, 'base64url');
    // Only the canonical spelling: no stray characters that decoding would quietly drop.
    if (bytes.toString('base64url') === pageId) {
      try {
        cursor = JSON.parse(bytes.toString('utf8'));
      } catch {
        cursor = undefined;
      }
    }
  }
  if (
    !Array.isArray(cursor) ||
    cursor.length !== 2 ||
    typeof cursor[0] !== 'string' ||
    !ISO_UTC.test(cursor[0]) ||
    Number.isNaN(Date.parse(cursor[0])) ||
    typeof cursor[1] !== 'string'
  ) {
    throw invalidPageId();
  }
  return { createdAt: cursor[0], id: cursor[1] };
}

/** The page id of an event page that starts at `seq`. */
export function encodeSeqPage(seq: number): string {
  return String(seq);
}

/** The `seq` an event page id names. */
export function decodeSeqPage(pageId: string): number {
  if (!SEQ.test(pageId)) throw invalidPageId();
  return Number(pageId);
}
