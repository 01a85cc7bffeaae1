import { createMemoryStorage } from '@agent-platform/storage-memory';
import { describe, expect, it } from 'vitest';
import { randomIdGenerator, systemClock, noopLogger, type StorageAdapter } from '@agent-platform/core';
import type { AuditEntry } from '../schemas/audit.js';
import { AuditLog, keyActor, SYSTEM_ACTOR } from './audit-log.js';

const alice = { userId: 'alice', orgId: 'acme', role: 'admin' as const };

function logOver(storage: StorageAdapter) {
  return new AuditLog({ storage, clock: systemClock, ids: randomIdGenerator, logger: noopLogger });
}

/** The same storage, its audit entries read back changed by `alter` (as if edited where they are stored). */
function tampered(storage: StorageAdapter, alter: (entries: AuditEntry[]) => AuditEntry[]): StorageAdapter {
  return { ...storage, audit: { ...storage.audit, list: async (orgId, filter) => alter(await storage.audit.list(orgId, filter)) } } as StorageAdapter;
}

describe('AuditLog', () => {
  it('chains concurrent appends one after another, and the chain verifies', async () => {
    const storage = createMemoryStorage();
    const log = logOver(storage);
    await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        log.record('acme', keyActor(alice), { action: 'automation.updated', target: { type: 'automation', id: `auto_${n}` } }),
      ),
    );
    const entries = (await log.list(alice, { limit: 100, after: 0 })).entries;
    expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 30 }, (_, n) => n + 1));
    for (const [index, entry] of entries.entries()) expect(entry.prev_hash).toBe(index === 0 ? null : entries[index - 1]!.hash);
    expect(await log.verify(alice)).toEqual({ valid: true, checked: 30, broken_at: null });
  });

  it('an edited, removed or reordered entry breaks the chain where it is', async () => {
    const storage = createMemoryStorage();
    const log = logOver(storage);
    for (let n = 0; n < 5; n++)
      await log.record('acme', SYSTEM_ACTOR, { action: 'agent.pull_request_opened', target: { type: 'run', id: `run_${n}` }, details: { number: n } });
    const edited = tampered(storage, (entries) => entries.map((entry) => (entry.seq === 3 ? { ...entry, details: { number: 99 } } : entry)));
    expect(await logOver(edited).verify(alice)).toEqual({ valid: false, checked: 2, broken_at: 3 });
    const removed = tampered(storage, (entries) => entries.filter((entry) => entry.seq !== 2));
    expect(await logOver(removed).verify(alice)).toMatchObject({ valid: false, broken_at: 3 });
    const rehashed = tampered(storage, (entries) => entries.map((entry) => (entry.seq === 4 ? { ...entry, actor: keyActor(alice) } : entry)));
    expect(await logOver(rehashed).verify(alice)).toMatchObject({ valid: false, broken_at: 4 });
    expect(await log.verify(alice)).toEqual({ valid: true, checked: 5, broken_at: null });
  });

  it('a failed write is logged and never thrown', async () => {
    const storage = createMemoryStorage();
    const failing = { ...storage, audit: { ...storage.audit, append: async () => Promise.reject(new Error('disk full')) } } as StorageAdapter;
    const lines: string[] = [];
    const logger = { ...noopLogger, error: (_fields: unknown, message: string) => void lines.push(message) };
    await new AuditLog({ storage: failing, clock: systemClock, ids: randomIdGenerator, logger: logger as never }).record('acme', SYSTEM_ACTOR, {
      action: 'x',
      target: { type: 'y', id: null },
    });
    expect(lines).toEqual(['audit log: the entry could not be written']);
  });
});
