/**
 * Conformance: `audit` — each org's append-only, hash-chained log: `append` hands `make` the
 * org's last entry (`null` for the first) and stores what it returns, refusing one that is not the
 * org's next; concurrent appends of one org form one unbroken chain; orgs are separate chains;
 * `list` returns entries exactly as appended, by seq, filtered and paged; an append is part of a
 * transaction like any other write. With the adapter test's `tamperAuditEntry` hook: an entry
 * edited in the backend itself is read back as edited, and core's verification (what
 * `GET /api/automation/v1/audit/verify` answers) names it.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuditLog, entryHash, noopLogger, StorageConflictError } from '@agent-platform/core';
import type { AuditEntry, StorageRepositories } from '@agent-platform/core';
import { fixtureTime, makeAuditEntry, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

type Last = { seq: number; hash: string } | null;

/** The org's next entry after `last`, chained to it; `overrides` as in `makeAuditEntry`. */
function nextEntry(orgId: string, last: Last, overrides: Partial<AuditEntry> = {}): AuditEntry {
  const seq = (last?.seq ?? 0) + 1;
  return makeAuditEntry({
    org_id: orgId,
    seq,
    at: fixtureTime(seq),
    prev_hash: last?.hash ?? null,
    hash: randomBytes(32).toString('hex'),
    ...overrides,
  });
}

/** Appends the org's next entry through `repos`, built by {@link nextEntry}. */
function append(repos: StorageRepositories, orgId: string, overrides: Partial<AuditEntry> = {}): Promise<AuditEntry> {
  return repos.audit.append(orgId, (last) => nextEntry(orgId, last, overrides));
}

const ALL = { afterSeq: 0, limit: 1000 };

/** Core's audit log over `ctx.adapter`: the chain as the platform writes and verifies it. */
function auditLogOver(ctx: SuiteContext): AuditLog {
  return new AuditLog({ storage: ctx.adapter, clock: { now: () => new Date() }, ids: { newId: (prefix) => uniqueId(prefix) }, logger: noopLogger });
}

export function describeAudit(ctx: SuiteContext): void {
  describe('audit', () => {
    it('hands the first append null and the next the seq and hash of the one before, and returns what it stored', async () => {
      const orgId = uniqueId('org');
      const seen: Last[] = [];
      const first = await ctx.adapter.audit.append(orgId, (last) => {
        seen.push(last);
        return nextEntry(orgId, last);
      });
      const second = await ctx.adapter.audit.append(orgId, (last) => {
        seen.push(last);
        return nextEntry(orgId, last);
      });
      expect(seen.at(0)).toBeNull();
      expect(seen.at(-1)).toEqual({ seq: 1, hash: first.hash });
      expect(first.seq).toBe(1);
      expect(second).toMatchObject({ seq: 2, prev_hash: first.hash });
    });

    it('lists entries exactly as appended, by seq, nulls and nested details included', async () => {
      const orgId = uniqueId('org');
      const appended = [
        await append(ctx.adapter, orgId),
        await append(ctx.adapter, orgId, {
          actor: { kind: 'system', id: null, role: null },
          target: { type: 'org', id: null },
          details: { fields: ['name', 'enabled'], before: { enabled: true, limit: 3 }, after: { enabled: false, limit: null }, note: 'é ✓ 😀' },
          request_id: null,
        }),
        await append(ctx.adapter, orgId, { actor: { kind: 'thread', id: 'octocat', role: null }, action: 'run.cancelled', details: {} }),
      ];
      expect(await ctx.adapter.audit.list(orgId, ALL)).toEqual(appended);
      expect(await ctx.adapter.audit.list(uniqueId('org'), ALL)).toEqual([]);
    });

    it('keeps each org its own chain', async () => {
      const a = uniqueId('org');
      const b = uniqueId('org');
      const a1 = await append(ctx.adapter, a);
      const a2 = await append(ctx.adapter, a);
      let seen: Last | undefined;
      const b1 = await ctx.adapter.audit.append(b, (last) => {
        seen = last;
        return nextEntry(b, last);
      });
      expect(seen).toBeNull();
      expect(b1).toMatchObject({ seq: 1, prev_hash: null });
      const a3 = await append(ctx.adapter, a);
      expect(a3).toMatchObject({ seq: 3, prev_hash: a2.hash });
      expect(await ctx.adapter.audit.list(a, ALL)).toEqual([a1, a2, a3]);
      expect(await ctx.adapter.audit.list(b, ALL)).toEqual([b1]);
    });

    it('chains concurrent appends of one org: seq 1..n, each linked to the one before', async () => {
      const orgId = uniqueId('org');
      const n = Math.max(ctx.concurrency, 2);
      await Promise.all(Array.from({ length: n }, () => append(ctx.adapter, orgId)));
      const entries = await ctx.adapter.audit.list(orgId, ALL);
      expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(entries[0]?.prev_hash).toBeNull();
      for (let i = 1; i < n; i += 1) expect(entries[i]?.prev_hash).toBe(entries[i - 1]?.hash);
    });

    it('refuses an entry that is not the org’s next, or is another org’s, and stores nothing', async () => {
      const orgId = uniqueId('org');
      const first = await append(ctx.adapter, orgId);
      await expect(ctx.adapter.audit.append(orgId, (last) => nextEntry(orgId, last, { seq: 3 }))).rejects.toThrow(StorageConflictError);
      await expect(ctx.adapter.audit.append(orgId, (last) => nextEntry(orgId, last, { seq: 1 }))).rejects.toThrow(StorageConflictError);
      await expect(ctx.adapter.audit.append(orgId, (last) => nextEntry(orgId, last, { org_id: uniqueId('org') }))).rejects.toThrow(StorageConflictError);
      expect(await ctx.adapter.audit.list(orgId, ALL)).toEqual([first]);
      expect(await append(ctx.adapter, orgId)).toMatchObject({ seq: 2, prev_hash: first.hash });
    });

    it('filters by action, actor, target type, target id, since and until, each and together', async () => {
      const orgId = uniqueId('org');
      const alice = uniqueId('user');
      const automation = uniqueId('auto');
      const e1 = await append(ctx.adapter, orgId, {
        action: 'automation.created',
        actor: { kind: 'key', id: alice, role: 'admin' },
        target: { type: 'automation', id: automation },
      });
      const e2 = await append(ctx.adapter, orgId, { action: 'webhook.secret_rotated', target: { type: 'webhook', id: uniqueId('wh') } });
      const e3 = await append(ctx.adapter, orgId, {
        action: 'automation.updated',
        actor: { kind: 'key', id: alice, role: 'admin' },
        target: { type: 'automation', id: automation },
      });
      const e4 = await append(ctx.adapter, orgId, {
        action: 'automation.created',
        actor: { kind: 'system', id: null, role: null },
        target: { type: 'automation', id: uniqueId('auto') },
      });
      const list = (filter: Partial<Parameters<StorageRepositories['audit']['list']>[1]>) => ctx.adapter.audit.list(orgId, { ...ALL, ...filter });
      expect(await list({ action: 'automation.created' })).toEqual([e1, e4]);
      expect(await list({ actor: alice })).toEqual([e1, e3]);
      expect(await list({ targetType: 'automation' })).toEqual([e1, e3, e4]);
      expect(await list({ targetId: automation })).toEqual([e1, e3]);
      // `at` is fixtureTime(seq): since is inclusive, until exclusive.
      expect(await list({ since: fixtureTime(2) })).toEqual([e2, e3, e4]);
      expect(await list({ until: fixtureTime(3) })).toEqual([e1, e2]);
      expect(await list({ since: fixtureTime(2), until: fixtureTime(4) })).toEqual([e2, e3]);
      expect(await list({ action: 'automation.created', actor: alice })).toEqual([e1]);
      expect(await list({ action: 'automation.deleted' })).toEqual([]);
      expect(await list({ action: 'AUTOMATION.CREATED' })).toEqual([]);
    });

    it('pages with afterSeq and limit', async () => {
      const orgId = uniqueId('org');
      const entries: AuditEntry[] = [];
      for (let i = 0; i < 7; i += 1) entries.push(await append(ctx.adapter, orgId, { action: i % 2 === 0 ? 'even' : 'odd' }));
      expect(await ctx.adapter.audit.list(orgId, { afterSeq: 0, limit: 3 })).toEqual(entries.slice(0, 3));
      expect(await ctx.adapter.audit.list(orgId, { afterSeq: 3, limit: 3 })).toEqual(entries.slice(3, 6));
      expect(await ctx.adapter.audit.list(orgId, { afterSeq: 6, limit: 3 })).toEqual(entries.slice(6));
      expect(await ctx.adapter.audit.list(orgId, { afterSeq: 7, limit: 3 })).toEqual([]);
      // With a filter, the limit counts matching entries and the page goes on past the others.
      expect(await ctx.adapter.audit.list(orgId, { afterSeq: 1, limit: 2, action: 'even' })).toEqual([entries[2], entries[4]]);
    });

    it('appends inside a transaction, seeing its own appends, and commits them', async () => {
      const orgId = uniqueId('org');
      const first = await append(ctx.adapter, orgId);
      const inside = await ctx.adapter.transaction(async (tx) => {
        const second = await append(tx, orgId);
        const third = await append(tx, orgId);
        expect(third.prev_hash).toBe(second.hash);
        expect(await tx.audit.list(orgId, ALL)).toEqual([first, second, third]);
        return [second, third];
      });
      expect(inside[0]).toMatchObject({ seq: 2, prev_hash: first.hash });
      expect(await ctx.adapter.audit.list(orgId, ALL)).toEqual([first, ...inside]);
    });

    // Only where the adapter's test can edit its backend past the adapter (a database: an SQL
    // UPDATE); an in-process store has no "behind its back", so the test does not apply there.
    const onlyWithTamper = ctx.tamperAuditEntry === undefined ? () => {} : it;
    onlyWithTamper('an entry edited in the backend breaks verification at that entry; recomputing its hash moves the break to the next', async () => {
      const tamper = ctx.tamperAuditEntry as NonNullable<SuiteContext['tamperAuditEntry']>;
      const orgId = uniqueId('org');
      const admin = { userId: 'alice', orgId, role: 'admin' as const };
      const log = auditLogOver(ctx);
      const actor = { kind: 'key' as const, id: 'alice', role: 'admin' as const };
      await log.record(orgId, actor, { action: 'automation.created', target: { type: 'automation', id: 'auto_1' }, details: { name: 'Deploys' } });
      await log.record(orgId, actor, { action: 'automation.updated', target: { type: 'automation', id: 'auto_1' }, details: { fields: ['filter'] } });
      await log.record(orgId, actor, { action: 'automation.deleted', target: { type: 'automation', id: 'auto_1' }, details: {} });
      await log.record(orgId, actor, { action: 'api_key.created', target: { type: 'api_key', id: 'key_1' }, details: { role: 'member' } });
      expect(await log.verify(admin)).toEqual({ valid: true, checked: 4, broken_at: null });
      const stored = await ctx.adapter.audit.list(orgId, ALL);

      // Someone hides what the update changed: the entry reads as edited, and verification names it.
      const edited: AuditEntry = { ...(stored[1] as AuditEntry), details: { fields: ['name'] } };
      await tamper(orgId, 2, edited);
      expect((await ctx.adapter.audit.list(orgId, ALL))[1]).toEqual(edited);
      expect(await log.verify(admin)).toEqual({ valid: false, checked: 1, broken_at: 2 });

      // Back as it was, the chain holds again: verification reads what is stored, nothing else.
      await tamper(orgId, 2, stored[1] as AuditEntry);
      expect(await log.verify(admin)).toEqual({ valid: true, checked: 4, broken_at: null });

      // Someone rewrites the deletion and recomputes its hash: the next entry's link no longer holds.
      const { hash: _hash, ...rest } = stored[2] as AuditEntry;
      const rewritten = { ...rest, action: 'automation.updated', details: { fields: ['enabled'] } };
      await tamper(orgId, 3, { ...rewritten, hash: entryHash(rewritten) });
      expect(await log.verify(admin)).toEqual({ valid: false, checked: 3, broken_at: 4 });
    });

    it('rolls back an append inside a transaction that throws', async () => {
      const orgId = uniqueId('org');
      const first = await append(ctx.adapter, orgId);
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await append(tx, orgId);
          expect(await tx.audit.list(orgId, ALL)).toHaveLength(2);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.audit.list(orgId, ALL)).toEqual([first]);
      expect(await append(ctx.adapter, orgId)).toMatchObject({ seq: 2, prev_hash: first.hash });
    });
  });
}
