/**
 * Row helpers the repositories share: copies on the way out, and the write rules common to
 * tables keyed by a fresh id.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import { cloneJson } from '../database/clone-json.js';
import type { Table } from '../table/index.js';

/** A private copy of `row`; `null` for a missing one. */
export function copy<V>(row: V | undefined): V | null {
  return row === undefined ? null : cloneJson(row);
}

/** Only the row of `orgId`: another org's id reads like a missing one. */
export function copyOwned<V extends { org_id: string }>(row: V | undefined, orgId: string): V | null {
  return row !== undefined && row.org_id === orgId ? cloneJson(row) : null;
}

/**
 * Oldest first, for the small groups kept unordered (a user's API keys, an org's webhooks); ids
 * break ties in code-unit order, like a `COLLATE "C"` database column.
 */
export function byCreation(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  const age = Date.parse(a.created_at) - Date.parse(b.created_at);
  if (age !== 0 && !Number.isNaN(age)) return age;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Throws {@link StorageConflictError} when `row`'s id is taken; `what` names the record in the message. */
export function assertNew<V>(table: Table<V>, row: V, what: string): void {
  const id = table.primaryKeyOf(row);
  if (table.live.get(id) !== undefined) throw new StorageConflictError(`${what} with id ${id} already exists`);
}

/** Inserts a row under a fresh id; `what` names the record in the conflict message. */
export function insertNew<V>(table: Table<V>, row: V, what: string): void {
  assertNew(table, row, what);
  table.put(row);
}

/** Replaces a stored row; false when there is none. */
export function replace<V>(table: Table<V>, row: V): boolean {
  if (table.live.get(table.primaryKeyOf(row)) === undefined) return false;
  table.put(row);
  return true;
}

/** Deletes the org's row; another org's id is left alone, like a missing one. */
export function deleteOwned<V extends { org_id: string }>(table: Table<V>, orgId: string, id: string): boolean {
  const current = table.live.get(id);
  return current !== undefined && current.org_id === orgId && table.delete(id);
}
