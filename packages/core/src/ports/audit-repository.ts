/**
 * The audit log's storage port: each org's entries, append-only, numbered and hash-chained.
 * @module
 */
import type { AuditEntry } from '../schemas/audit.js';

/** Filters of {@link AuditRepository.list}; every one given must hold. */
export interface AuditFilter {
  /** Entries with `seq` above this. */
  afterSeq: number;
  limit: number;
  action?: string;
  /** The actor's `id`. */
  actor?: string;
  targetType?: string;
  targetId?: string;
  /** `at` at or after this (ISO). */
  since?: string;
  /** `at` before this (ISO). */
  until?: string;
}

/**
 * Each org's audit log: append-only, numbered and hash-chained per org. Conformance: `describeAudit`.
 */
export interface AuditRepository {
  /**
   * Appends the org's next entry: `make` is called with the org's last entry's `seq` and `hash`
   * (`null` for the first) and returns the entry to store, whose `seq` is the next one. Appends of
   * one org are serialized (across processes on a shared backend), so no two entries share a
   * `seq` or a predecessor; `make` may run more than once (a retried transaction).
   */
  append(orgId: string, make: (last: { seq: number; hash: string } | null) => AuditEntry): Promise<AuditEntry>;
  /** The org's entries matching `filter`, by `seq` ascending, at most `filter.limit`. */
  list(orgId: string, filter: AuditFilter): Promise<AuditEntry[]>;
}
