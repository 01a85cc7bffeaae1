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
