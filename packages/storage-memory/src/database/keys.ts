/**
 * Composite keys for the tables and indexes that are keyed by more than one string.
 * @module
 */

/** Length-prefixed so no pair of strings can produce another pair's key. */
export function pairKey(first: string, second: string): string {
  return `${first.length}:${first}:${second}`;
}

/** A dedup claim's key: one claim per (org, source, key). */
export function claimKey(orgId: string, source: string, key: string): string {
  return pairKey(orgId, pairKey(source, key));
}

/** A GitHub link's primary key: one link per (kind, key, org). */
export function linkKey(kind: string, key: string, orgId: string): string {
  return pairKey(kind, pairKey(key, orgId));
}

/** A thread's primary key: one thread per (org, automation, key). */
export function threadKey(orgId: string, automationId: string, key: string): string {
  return pairKey(orgId, pairKey(automationId, key));
}

/** A spend ledger row's key: one row per (org, user, automation or none, model, day). */
export function spendKey(row: { org_id: string; user_id: string; automation_id: string | null; model: string; day: string }): string {
  // `null` and '' are told apart: an automation id is never empty.
  return pairKey(row.org_id, pairKey(row.user_id, pairKey(row.automation_id === null ? '' : `a${row.automation_id}`, pairKey(row.model, row.day))));
}

/** A spend total's key: one per (org, scope, subject, period, start). */
export function spendTotalKey(orgId: string, key: { scope: string; subjectId: string | null; period: string; start: string }): string {
  return pairKey(orgId, pairKey(key.scope, pairKey(key.period, pairKey(key.start, key.subjectId ?? ''))));
}

/** A budget's slot: an org has at most one budget per (scope, subject, period). */
export function budgetSlotKey(row: { org_id: string; scope: string; subject_id: string | null; period: string }): string {
  return pairKey(row.org_id, pairKey(row.scope, pairKey(row.period, row.subject_id ?? '')));
}

/** An audit entry's primary key: one entry per (org, seq). */
export function auditKey(orgId: string, seq: number): string {
  return pairKey(orgId, String(seq));
}

/**
 * The group of an automation's runs that share a concurrency key: `null` (no key) and every
 * string, the empty one included, get keys of their own.
 */
export function concurrencyKey(orgId: string, automationId: string, key: string | null): string {
  return pairKey(orgId, pairKey(automationId, key === null ? '' : `=${key}`));
}

/** A subscription's messages: one group per (org, subscription). */
export function subscriptionKey(orgId: string, subscriptionId: string): string {
  return pairKey(orgId, subscriptionId);
}

/** A subscription's messages in one status. */
export function subscriptionStatusKey(orgId: string, subscriptionId: string, status: string): string {
  return pairKey(orgId, pairKey(subscriptionId, status));
}
