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
