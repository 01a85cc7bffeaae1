/**
 * Cursor pages (`CursorOptions`) as keyset pages. A newest-first page id names the last item of
 * the page before — its `created_at` as stored and its id, as base64url JSON — and the next page
 * starts strictly after it in `(created_at, id)` order, so inserts and deletes between pages never
 * make one repeat or skip an item. An event page id is the next `seq`, in decimal.
 * @module
 */
import { validationError } from '@agent-platform/core';
import type { PlatformError } from '@agent-platform/core';

/** The timestamps records carry (zod's `z.iso.datetime()`): UTC, `Z`, any fraction of a second. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z$/;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The position a newest-first page continues after. */
export interface Cursor {
  createdAt: string;
  id: string;
}

function invalidPageId(): PlatformError {
  return validationError(['query', 'page_id'], 'invalid page id');
}

/** `limit` if it is a positive integer; a VALIDATION_FAILED `PlatformError` otherwise. */
export function checkLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw validationError(['query', 'limit'], 'limit must be a positive integer');
  }
  return limit;
}

export function encodeCursor(row: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id]), 'utf8').toString('base64url');
}

/** The cursor a page id names; a VALIDATION_FAILED `PlatformError` for one we did not hand out. */
export function decodeCursor(pageId: string): Cursor {
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

export function encodeSeq(seq: number): string {
  return String(seq);
}

/** The `seq` an event page id names. */
export function decodeSeq(pageId: string): number {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(pageId)) throw invalidPageId();
  return Number(pageId);
}
