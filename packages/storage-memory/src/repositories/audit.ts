/**
 * Audit: each org's entries keyed by (org, seq), numbered 1, 2, 3, ... without gaps. An append
 * runs as one write (under the store's lock, or inside the transaction holding it), so reading the
 * org's last entry, calling `make` and storing its result cannot interleave with another append of
 * the org; inside a transaction it sees the transaction's own appends and rolls back with it.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import type { AuditEntry, AuditFilter, AuditRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { auditKey } from '../database/keys.js';

/** Whether `entry` passes every filter given (the `seq` bound and the limit aside). */
function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.action !== undefined && entry.action !== filter.action) return false;
  if (filter.actor !== undefined && entry.actor.id !== filter.actor) return false;
  if (filter.targetType !== undefined && entry.target.type !== filter.targetType) return false;
  if (filter.targetId !== undefined && entry.target.id !== filter.targetId) return false;
  if (filter.since !== undefined && !(Date.parse(entry.at) >= Date.parse(filter.since))) return false;
  if (filter.until !== undefined && !(Date.parse(entry.at) < Date.parse(filter.until))) return false;
  return true;
}

export function auditRepository(db: Database, access: Access): AuditRepository {
  return {
    async append(orgId, make) {
      return access.write(() => {
        // The live state: the lock (or the transaction) is held, so no other append runs now.
        const lastSeq = db.auditByOrg.get(orgId).size;
        const last = lastSeq === 0 ? undefined : db.audit.live.get(auditKey(orgId, lastSeq));
        const made = make(last === undefined ? null : { seq: last.seq, hash: last.hash });
        if (made.org_id !== orgId) throw new StorageConflictError(`An audit entry of org ${made.org_id} was appended to org ${orgId}`);
        if (made.seq !== lastSeq + 1) throw new StorageConflictError(`Audit entry ${made.seq} of org ${orgId} is not its next (${lastSeq + 1})`);
        const row = cloneJson(made);
        db.audit.put(row);
        return cloneJson(row);
      });
    },
    async list(orgId, filter) {
      const limit = Math.floor(filter.limit);
      const found: AuditEntry[] = [];
      if (!(limit > 0)) return found;
      const entries = readView(access, db.audit);
      // Entries are numbered without gaps: read on from the first after `afterSeq` until one is missing.
      for (let seq = Math.max(1, Math.floor(filter.afterSeq) + 1); found.length < limit; seq += 1) {
        const entry = entries.get(auditKey(orgId, seq));
        if (entry === undefined) break;
        if (matches(entry, filter)) found.push(cloneJson(entry));
      }
      return found;
    },
  };
}
