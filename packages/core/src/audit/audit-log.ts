/**
 * The org's audit log: who changed what — keys, roles, settings and tokens (field names only,
 * never values), sources, subscribers, automations (which fields), cancels, approvals, and what
 * agents did on code hosts — appended as the change is made, chained by hash, read with filters
 * and a cursor, exported as NDJSON and verified. A write that fails is logged and never undoes
 * the change it records (the change is the user's; the log is its witness).
 * @module
 */
import type { Logger } from '../ports/logger.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { AuditEntry, AuditPage, AuditQuery, AuditVerification } from '../schemas/audit.js';
import type { Principal } from '../schemas/principal.js';
import { entryHash, firstBroken } from './audit-chain.js';
import { currentRequestId } from './request-scope.js';

export type AuditActor = AuditEntry['actor'];

/** What one change records. */
export interface AuditRecord {
  action: string;
  target: { type: string; id: string | null };
  /** What changed: field names and values that are not secrets. */
  details?: Record<string, unknown>;
}

/** A person acting with their key. */
export const keyActor = (principal: Principal): AuditActor => ({ kind: 'key', id: principal.userId, role: principal.role ?? 'owner' });
/** A person commanding in a code-host thread, by their login. */
export const threadActor = (login: string): AuditActor => ({ kind: 'thread', id: login, role: null });
/** The platform itself (an agent's action, a sweep). */
export const SYSTEM_ACTOR: AuditActor = { kind: 'system', id: null, role: null };

/** Entries read per page while exporting or verifying. */
const PAGE = 500;

export class AuditLog {
  constructor(private readonly ports: { storage: StorageAdapter; clock: Clock; ids: IdGenerator; logger: Logger }) {}

  /** Appends one entry to `orgId`'s log. Never throws: a failed write is logged. */
  async record(orgId: string, actor: AuditActor, record: AuditRecord): Promise<void> {
    const at = this.ports.clock.now().toISOString();
    const id = this.ports.ids.newId('aud');
    const requestId = currentRequestId();
    try {
      await this.ports.storage.audit.append(orgId, (last) => {
        const entry: Omit<AuditEntry, 'hash'> = {
          id,
          org_id: orgId,
          seq: (last?.seq ?? 0) + 1,
          at,
          actor,
          action: record.action,
          target: record.target,
          details: record.details ?? {},
          request_id: requestId,
          prev_hash: last?.hash ?? null,
        };
        return { ...entry, hash: entryHash(entry) };
      });
    } catch (error) {
      this.ports.logger.error({ kind: 'audit', orgId, action: record.action, err: String(error) }, 'audit log: the entry could not be written');
    }
  }

  async list(principal: Principal, query: AuditQuery): Promise<AuditPage> {
    const entries = await this.ports.storage.audit.list(principal.orgId, {
      afterSeq: query.after,
      limit: query.limit,
      ...(query.action ? { action: query.action } : {}),
      ...(query.actor ? { actor: query.actor } : {}),
      ...(query.target_type ? { targetType: query.target_type } : {}),
      ...(query.target_id ? { targetId: query.target_id } : {}),
      ...(query.since ? { since: query.since } : {}),
      ...(query.until ? { until: query.until } : {}),
    });
    return { entries, next_after: entries.length === query.limit ? (entries.at(-1) as AuditEntry).seq : null };
  }

  /** Every entry matching `query` (its `limit` ignored), one JSON line each, read a page at a time. */
  async *export(principal: Principal, query: AuditQuery): AsyncIterable<string> {
    let after = query.after;
    for (;;) {
      const page = await this.list(principal, { ...query, after, limit: PAGE });
      for (const entry of page.entries) yield `${JSON.stringify(entry)}\n`;
      if (page.next_after === null) return;
      after = page.next_after;
    }
  }

  /** Walks the org's whole chain: every entry's number, link and hash. */
  async verify(principal: Principal): Promise<AuditVerification> {
    let checked = 0;
    let last: { seq: number; hash: string } | null = null;
    for (;;) {
      const entries = await this.ports.storage.audit.list(principal.orgId, { afterSeq: last?.seq ?? 0, limit: PAGE });
      const broken = firstBroken(entries, last);
      if (broken) return { valid: false, checked: checked + entries.indexOf(broken), broken_at: broken.seq };
      checked += entries.length;
      if (entries.length < PAGE) return { valid: true, checked, broken_at: null };
      const tail = entries.at(-1) as AuditEntry;
      last = { seq: tail.seq, hash: tail.hash };
    }
  }
}
