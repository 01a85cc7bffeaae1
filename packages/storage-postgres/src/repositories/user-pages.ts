/**
 * The newest-first keyset pages of a user's sandboxes, conversations and start tasks.
 * @module
 */
import { validationError } from '@agent-platform/core';
import { checkPageLimit, decodePageCursor, encodePageCursor } from '@agent-platform/core/adapter-kit';
import type { CursorOptions, CursorPage } from '@agent-platform/core';
import { toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { recordsOf, type DataRow } from './rows.js';

/** Tables with `user_id`, `created_at`, `id` and an index on (user_id, created_at, id). */
export type UserTable = 'agent_platform.sandboxes' | 'agent_platform.conversations' | 'agent_platform.start_tasks';

/**
 * One page of `userId`'s records in `table`, newest first, then by id descending. One row more
 * than the page is read, to know whether another page follows.
 * @param record - The record's JSON text as selected, for a table that keeps part of it in
 *   columns (conversations: their version).
 */
export async function userPage<T extends { created_at: string; id: string }>(
  sql: Sql,
  table: UserTable,
  userId: string,
  options: CursorOptions,
  record = 'data::text',
): Promise<CursorPage<T>> {
  const limit = checkPageLimit(options.limit);
  const cursor = options.pageId === undefined ? undefined : decodePageCursor(options.pageId);
  let rows: DataRow[];
  try {
    ({ rows } = cursor
      ? await sql.query<DataRow>(
          `SELECT ${record} AS data FROM ${table}
           WHERE user_id = $1 AND (created_at, id) < ($2::timestamptz, $3)
           ORDER BY created_at DESC, id DESC LIMIT $4`,
          [toText(userId), cursor.createdAt, toText(cursor.id), limit + 1],
        )
      : await sql.query<DataRow>(`SELECT ${record} AS data FROM ${table} WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [
          toText(userId),
          limit + 1,
        ]));
  } catch (error) {
    // A forged page id whose instant the database cannot read (class 22: data exception).
    if (cursor && /^22/.test(String((error as { code?: unknown }).code))) {
      throw validationError(['query', 'page_id'], 'invalid page id');
    }
    throw error;
  }
  const items = recordsOf<T>(rows.slice(0, limit));
  const last = items.at(-1);
  return { items, nextPageId: rows.length > limit && last ? encodePageCursor(last) : null };
}
