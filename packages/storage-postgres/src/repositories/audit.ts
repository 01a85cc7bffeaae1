/**
 * Audit: each org's entries in `audit_entries`, keyed by (org_id, seq), the entry whole in `data`.
 *
 * An append is one transaction — the caller's inside `storage.transaction`, else one of its own
 * (see {@link Atomically}) — that takes a transaction-level advisory lock on the org, reads the
 * org's last entry, calls `make` and inserts its result. Appends of one org are so serialized
 * across connections and processes; the primary key is the backstop (a SERIALIZABLE transaction
 * whose snapshot predates the last append fails on it and runs again, `make` with it).
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import type { AuditEntry, AuditFilter, AuditRepository } from '@agent-platform/core';
import { fromText, toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, recordsOf, type DataRow } from './rows.js';

/** Runs `fn` in one transaction: the one `fn`'s `Sql` already is, or a new one. */
export type Atomically = <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>;

interface LastRow {
  seq: string | number;
  hash: string;
}

const INSERT_ENTRY = `INSERT INTO agent_platform.audit_entries (org_id, seq, at, action, actor_id, target_type, target_id, data)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) ON CONFLICT (org_id, seq) DO NOTHING RETURNING 1`;

/** The statement and parameters of a list: the filters given, by seq, at most `limit`. */
function listQuery(orgId: string, filter: AuditFilter): { text: string; params: unknown[] } {
  const afterSeq = Number.isFinite(filter.afterSeq) ? Math.floor(filter.afterSeq) : 0;
  const params: unknown[] = [toText(orgId), afterSeq];
  const where = ['org_id = $1', 'seq > $2'];
  const add = (condition: (placeholder: string) => string, value: unknown): void => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (filter.action !== undefined) add((p) => `action = ${p}`, toText(filter.action));
  if (filter.actor !== undefined) add((p) => `actor_id = ${p}`, toText(filter.actor));
  if (filter.targetType !== undefined) add((p) => `target_type = ${p}`, toText(filter.targetType));
  if (filter.targetId !== undefined) add((p) => `target_id = ${p}`, toText(filter.targetId));
  if (filter.since !== undefined) add((p) => `at >= ${p}::timestamptz`, filter.since);
  if (filter.until !== undefined) add((p) => `at < ${p}::timestamptz`, filter.until);
  params.push(Math.max(0, Math.floor(filter.limit)));
  return {
    text: `SELECT data::text AS data FROM agent_platform.audit_entries WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${params.length}`,
    params,
  };
}

export function auditRepository(sql: Sql, atomically: Atomically): AuditRepository {
  return {
    append(orgId, make) {
      return atomically(async (tx) => {
        const org = toText(orgId);
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('audit:' || $1))`, [org]);
        const { rows } = await tx.query<LastRow>(
          'SELECT seq, data->>$2 AS hash FROM agent_platform.audit_entries WHERE org_id = $1 ORDER BY seq DESC LIMIT 1',
          [org, 'hash'],
        );
        const row = rows[0];
        const last = row === undefined ? null : { seq: Number(row.seq), hash: fromText(row.hash) };
        const lastSeq = last?.seq ?? 0;
        const entry: AuditEntry = structuredClone(make(last));
        if (entry.org_id !== orgId) throw new StorageConflictError(`An audit entry of org ${entry.org_id} was appended to org ${orgId}`);
        if (entry.seq !== lastSeq + 1) throw new StorageConflictError(`Audit entry ${entry.seq} of org ${orgId} is not its next (${lastSeq + 1})`);
        await insertOrConflict(
          tx,
          INSERT_ENTRY,
          [
            org,
            entry.seq,
            entry.at,
            toText(entry.action),
            entry.actor.id === null ? null : toText(entry.actor.id),
            toText(entry.target.type),
            entry.target.id === null ? null : toText(entry.target.id),
            toJsonb(entry),
          ],
          `Audit entry ${entry.seq} of org ${orgId} already exists`,
        );
        return entry;
      });
    },
    async list(orgId, filter) {
      if (!(filter.limit >= 1)) return [];
      const { text, params } = listQuery(orgId, filter);
      const { rows } = await sql.query<DataRow>(text, params);
      return recordsOf<AuditEntry>(rows);
    },
  };
}
