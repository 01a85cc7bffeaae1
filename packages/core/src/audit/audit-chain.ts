/**
 * The audit log's chain: an entry's hash is the SHA-256 of its canonical JSON (keys sorted at
 * every level) without the hash itself, its predecessor's hash included — so any stored entry
 * edited, removed or moved breaks the chain from there on.
 * @module
 */
import { createHash } from 'node:crypto';
import type { AuditEntry } from '../schemas/audit.js';

/** JSON with object keys sorted at every level: the same entry always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonical(entry)).digest('hex');
}

/** The first entry of `entries` (one org's, in `seq` order from 1) whose link or hash does not hold; `null` when all do. */
export function firstBroken(entries: readonly AuditEntry[], previous: { seq: number; hash: string } | null): AuditEntry | null {
  let last = previous;
  for (const entry of entries) {
    const { hash, ...rest } = entry;
    if (entry.seq !== (last?.seq ?? 0) + 1 || entry.prev_hash !== (last?.hash ?? null) || entryHash(rest) !== hash) return entry;
    last = { seq: entry.seq, hash };
  }
  return null;
}
