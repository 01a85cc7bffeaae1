/**
 * Conformance: concurrent transactions behave as if run one after another — no lost update, one
 * winner among conflicting inserts, no reading another's rolled-back writes, and one's rollback
 * never undoing another's commit.
 * @module
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import { fixtureTime, makeApiKeyRecord, makeSettingsRecord, makeWebhookRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOLD_MS } from './held-transaction.js';

/** Transactions running at once behave as if run one after another. */
export function describeTransactionConcurrency(ctx: SuiteContext): void {
  it('concurrent read-increment-write transactions all land', async () => {
    const record = makeSettingsRecord({ values: { max_iterations: 0 } });
    await ctx.adapter.settings.put(record);
    await Promise.all(
      Array.from({ length: ctx.concurrency }, () =>
        ctx.adapter.transaction(async (tx) => {
          const current = await tx.settings.get(record.user_id);
          if (!current) throw new Error('settings record vanished');
          // Yield so a non-serializing adapter would interleave the reads and lose updates.
          await nextTurn();
          const count = current.values.max_iterations ?? 0;
          await tx.settings.put({ ...current, values: { ...current.values, max_iterations: count + 1 } });
        }),
      ),
    );
    expect((await ctx.adapter.settings.get(record.user_id))?.values.max_iterations).toBe(ctx.concurrency);
  });

  it('of concurrent transactions inserting the same key, one commits and the others conflict', async () => {
    const record = makeApiKeyRecord();
    const outcomes = await Promise.allSettled(
      Array.from({ length: ctx.concurrency }, (_, n) =>
        ctx.adapter.transaction(async (tx) => {
          await nextTurn();
          await tx.apiKeys.insert({ ...record, name: `attempt ${n}` });
          return n;
        }),
      ),
    );
    const committed = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const reasons = outcomes.flatMap((outcome): unknown[] => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(committed).toHaveLength(1);
    for (const reason of reasons) expect(reason).toBeInstanceOf(StorageConflictError);
    expect((await ctx.adapter.apiKeys.get(record.id))?.name).toBe(`attempt ${committed[0]}`);
  });

  it("a transaction never sees a concurrent transaction's rolled-back writes", async () => {
    const record = makeApiKeyRecord();
    const error = new Error('rollback');
    const failing = ctx.adapter.transaction(async (tx) => {
      await tx.apiKeys.insert(record);
      await sleep(HOLD_MS);
      throw error;
    });
    const observer = ctx.adapter.transaction(async (tx) => {
      const byId = await tx.apiKeys.get(record.id);
      const byHash = await tx.apiKeys.getByHash(record.key_hash);
      return [byId, byHash];
    });
    await expect(failing).rejects.toBe(error);
    expect(await observer).toEqual([null, null]);
  });

  it('a failing transaction does not undo a concurrent one that commits', async () => {
    const orgId = uniqueId('org');
    const failed = makeWebhookRecord({ org_id: orgId, created_at: fixtureTime(1) });
    const committed = makeWebhookRecord({ org_id: orgId, created_at: fixtureTime(2) });
    const error = new Error('rollback');
    const outcomes = await Promise.allSettled([
      ctx.adapter.transaction(async (tx) => {
        await tx.webhooks.insert(failed);
        await nextTurn();
        throw error;
      }),
      ctx.adapter.transaction(async (tx) => {
        await tx.webhooks.insert(committed);
        await nextTurn();
      }),
    ]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: error },
      { status: 'fulfilled', value: undefined },
    ]);
    expect(await ctx.adapter.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({
      items: [committed],
      total: 1,
    });
  });
}
