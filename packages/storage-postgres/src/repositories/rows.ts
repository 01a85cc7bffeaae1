/**
 * Helpers the repositories share: records in and out of their `data` column, inserts that report
 * a taken key as `StorageConflictError`, and offset pages counted in the same statement.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import type { ListResult } from '@agent-platform/core';
import { fromJsonb } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';

/** A row of `SELECT data::text AS data ...`. */
export interface DataRow {
  data: string;
}

export function recordOf<T>(rows: readonly DataRow[]): T | null {
  const row = rows[0];
  return row === undefined ? null : fromJsonb<T>(row.data);
}

export function recordsOf<T>(rows: readonly DataRow[]): T[] {
  return rows.map((row) => fromJsonb<T>(row.data));
}

/**
 * Runs an `INSERT ... ON CONFLICT DO NOTHING RETURNING 1`: no row back means a unique key was
 * taken. Nothing fails inside the database, so a transaction goes on after a caught conflict;
 * under SERIALIZABLE a conflict with a row committed concurrently is a serialization failure,
 * retried, and the retry then sees the row.
 */
export async function insertOrConflict(sql: Sql, text: string, params: readonly unknown[], conflict: string): Promise<void> {
  const { rowCount } = await sql.query(text, params);
  if (rowCount === 0) throw new StorageConflictError(conflict);
}

interface PageRow {
  total: number;
  items: string[] | null;
}

/**
 * A `ListResult` from one statement: `SELECT (count) AS total, array(page of data::text) AS items`,
 * so the count and the page come from one snapshot.
 */
export async function offsetPage<T>(sql: Sql, text: string, params: readonly unknown[]): Promise<ListResult<T>> {
  const { rows } = await sql.query<PageRow>(text, params);
  const row = rows[0];
  return {
    items: (row?.items ?? []).map((data) => fromJsonb<T>(data)),
    total: Number(row?.total ?? 0),
  };
}

/** `LIMIT` / `OFFSET` as the database takes them; the port's callers validate them. */
export function limitOffset(options: { limit: number; offset: number }): [number, number] {
  return [Math.max(0, Math.floor(options.limit)), Math.max(0, Math.floor(options.offset))];
}
