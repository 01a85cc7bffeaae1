/**
 * Conformance: the `ChangeFeed` — what one adapter publishes reaches the subscribers of every
 * adapter over the same backend, after the publishing call, until they unsubscribe.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { PublishedChange, StorageChange } from '@agent-platform/core';
import { uniqueId } from '../fixtures/records.js';
import type { QueueSuiteContext } from './context.js';

/** Waits until `done()` holds, polling every 5 ms, for at most `ms`. */
async function until(what: string, done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`change feed: ${what} not seen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const settle = (ms = 150) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeChangeFeed(ctx: QueueSuiteContext): void {
  describe('ChangeFeed', () => {
    it('delivers each kind of change to subscribers of every adapter over the backend, the publisher’s own included', async () => {
      const [a, b] = [await ctx.backend.open(), await ctx.backend.open()];
      const seenByA: StorageChange[] = [];
      const seenByB: StorageChange[] = [];
      await a.changes.subscribe((change) => seenByA.push(change));
      await b.changes.subscribe((change) => seenByB.push(change));
      const changes: PublishedChange[] = [
        { type: 'runs.pending' },
        { type: 'run.cancelled', orgId: uniqueId('org'), runId: uniqueId('run') },
        { type: 'automations.changed', orgId: uniqueId('org'), source: 'linear' },
      ];
      for (const change of changes) await a.changes.publish(change);
      for (const change of changes) {
        await until(
          `${change.type} on both`,
          () =>
            seenByA.some((seen) => JSON.stringify(seen) === JSON.stringify(change)) && seenByB.some((seen) => JSON.stringify(seen) === JSON.stringify(change)),
        );
      }
    });

    it('calls listeners after the publishing call, never inside it', async () => {
      const storage = await ctx.backend.open();
      let publishing = false;
      const inside: boolean[] = [];
      await storage.changes.subscribe(() => inside.push(publishing));
      publishing = true;
      const sent = storage.changes.publish({ type: 'runs.pending' });
      publishing = false;
      await sent;
      await until('the change', () => inside.length > 0);
      expect(inside.every((flag) => !flag)).toBe(true);
    });

    it('delivers every cancel and every automation change (only runs.pending may be coalesced)', async () => {
      const [a, b] = [await ctx.backend.open(), await ctx.backend.open()];
      const seen = new Set<string>();
      await b.changes.subscribe((change) => {
        if (change.type === 'run.cancelled') seen.add(change.runId);
        if (change.type === 'automations.changed') seen.add(`${change.orgId}/${change.source}`);
      });
      const orgId = uniqueId('org');
      const expected: string[] = [];
      await Promise.all(
        Array.from({ length: 40 }, (_, n) => {
          if (n % 2) {
            const runId = uniqueId('run');
            expected.push(runId);
            return a.changes.publish({ type: 'run.cancelled', orgId, runId });
          }
          expected.push(`${orgId}/src-${n}`);
          return a.changes.publish({ type: 'automations.changed', orgId, source: `src-${n}` });
        }),
      );
      await until('all 40 changes', () => expected.every((key) => seen.has(key)));
    });

    it('stops calling a listener once unsubscribed, and keeps calling the others', async () => {
      const [a, b] = [await ctx.backend.open(), await ctx.backend.open()];
      const stopped: StorageChange[] = [];
      const kept: StorageChange[] = [];
      const unsubscribe = await b.changes.subscribe((change) => stopped.push(change));
      await b.changes.subscribe((change) => kept.push(change));
      await a.changes.publish({ type: 'run.cancelled', orgId: 'o', runId: 'first' });
      await until('the first change', () => stopped.length > 0 && kept.length > 0);
      await unsubscribe();
      await a.changes.publish({ type: 'run.cancelled', orgId: 'o', runId: 'second' });
      await until('the second change', () => kept.some((change) => change.type === 'run.cancelled' && change.runId === 'second'));
      await settle();
      expect(stopped.some((change) => change.type === 'run.cancelled' && change.runId === 'second')).toBe(false);
    });

    it('a listener that throws does not keep the change from the others', async () => {
      const storage = await ctx.backend.open();
      const heard: StorageChange[] = [];
      await storage.changes.subscribe(() => {
        throw new Error('listener failure');
      });
      await storage.changes.subscribe((change) => heard.push(change));
      await storage.changes.publish({ type: 'automations.changed', orgId: 'o', source: 's' });
      await until('the change', () => heard.length > 0);
    });
  });
}
