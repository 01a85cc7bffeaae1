/**
 * Group commit of deliveries on PostgreSQL and PGlite: concurrent deliveries share commits (seen
 * in the rows' `xmin`, the id of the transaction that wrote them), a delivery the database refuses
 * fails alone, and dedup stays exact when two adapters (as two server processes) batch
 * redeliveries of the same keys at once, within a batch and across batches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DedupClaim, DeliveryRecord, DeliveryWrite, StorageAdapter } from '@agent-platform/core';
import { fixtureTime, makeDedupClaim, makeDeliveryRecord, makeRunRecord, uniqueId } from '@agent-platform/testing';
import { createPGliteStorage, createPostgresStorage, type GroupCommitLimits } from './index.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';
import { useMigratedPGlite } from '../test-support/pglite-instance.js';

const available = await postgresAvailable();
const pglite = useMigratedPGlite();

/** A delivery with one PENDING run, and the claim of its key. */
function write(overrides: Partial<DeliveryRecord> = {}, claim: Partial<DedupClaim> = {}): DeliveryWrite {
  const delivery = makeDeliveryRecord(overrides);
  const { deliveryId: _unused, ...rest } = makeDedupClaim(delivery, claim);
  return { delivery, runs: [makeRunRecord({ org_id: delivery.org_id, delivery_id: delivery.id })], claim: rest };
}

interface Backend {
  /** Two adapters on one database, as two processes would have (with PGlite: on one instance). */
  open(groupCommit?: false | GroupCommitLimits): Promise<[StorageAdapter, StorageAdapter]>;
  /** How many transactions wrote these deliveries. */
  transactionsOf(storage: StorageAdapter, ids: readonly string[]): Promise<number>;
}

let database: ThrowawayDatabase | undefined;
const opened: StorageAdapter[] = [];

beforeAll(async () => {
  if (available) database = await createThrowawayDatabase();
});

afterAll(async () => {
  await Promise.all(opened.map((storage) => storage.close()));
  await database?.drop();
});

const backends: [string, boolean, Backend][] = [
  [
    'PostgreSQL',
    available,
    {
      async open(groupCommit) {
        const url = (database as ThrowawayDatabase).url;
        const pair = await Promise.all([
          createPostgresStorage({ connectionString: url, groupCommit }),
          createPostgresStorage({ connectionString: url, groupCommit }),
        ]);
        opened.push(...pair);
        return pair;
      },
      async transactionsOf(_storage, ids) {
        const pg = await import('pg');
        const client = new pg.default.Client({ connectionString: (database as ThrowawayDatabase).url });
        await client.connect();
        try {
          const { rows } = await client.query('SELECT count(DISTINCT xmin::text)::int AS n FROM agent_platform.deliveries WHERE id = ANY($1)', [ids]);
          return rows[0].n as number;
        } finally {
          await client.end();
        }
      },
    },
  ],
  [
    'PGlite',
    true,
    {
      async open(groupCommit) {
        const pair = await Promise.all([createPGliteStorage({ db: pglite(), groupCommit }), createPGliteStorage({ db: pglite(), groupCommit })]);
        opened.push(...pair);
        return pair;
      },
      async transactionsOf(_storage, ids) {
        const { rows } = await pglite().query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM agent_platform.deliveries WHERE id = ANY($1)', [
          ids,
        ]);
        return (rows[0] as { n: number }).n;
      },
    },
  ],
];

describe('groupCommit', () => {
  it('refuses bounds that are not positive integers', async () => {
    for (const bad of [{ maxBatch: 0 }, { maxInFlight: 1.5 }, { maxBatch: -1 }]) {
      await expect(createPGliteStorage({ db: pglite(), groupCommit: bad })).rejects.toThrow(RangeError);
    }
  });
});

describe.each(backends)('group commit of deliveries on %s', (_name, runs, backend) => {
  it.runIf(runs)('writes 40 concurrent deliveries in a few commits, each answered once written', async () => {
    const [storage] = await backend.open();
    const orgId = uniqueId('org');
    const writes = Array.from({ length: 40 }, () => write({ org_id: orgId }));
    const answers = await Promise.all(writes.map((one) => storage.deliveries.recordDelivery(one)));
    expect(answers).toEqual(Array(40).fill({ duplicateOf: null }));
    for (const one of writes) expect(await storage.deliveries.get(orgId, one.delivery.id)).toEqual(one.delivery);
    const transactions = await backend.transactionsOf(
      storage,
      writes.map((one) => one.delivery.id),
    );
    // Submitted in one turn of the event loop, they share one commit (or a few, should a batch fill up).
    expect(transactions).toBeGreaterThanOrEqual(1);
    expect(transactions).toBeLessThanOrEqual(3);
  });

  it.runIf(runs)('with groupCommit: false, writes each delivery in a commit of its own', async () => {
    const [storage] = await backend.open(false);
    const orgId = uniqueId('org');
    const writes = Array.from({ length: 12 }, () => write({ org_id: orgId }));
    await Promise.all(writes.map((one) => storage.deliveries.recordDelivery(one)));
    expect(
      await backend.transactionsOf(
        storage,
        writes.map((one) => one.delivery.id),
      ),
    ).toBe(12);
  });

  it.runIf(runs)('refuses a delivery with a value the database cannot take, and writes the others of its batch', async () => {
    const [storage] = await backend.open({ maxInFlight: 1 });
    const orgId = uniqueId('org');
    const writes = Array.from({ length: 10 }, () => write({ org_id: orgId }));
    const bad = writes[6] as DeliveryWrite;
    bad.delivery = { ...bad.delivery, received_at: 'the day after tomorrow' };
    const results = await Promise.allSettled(writes.map((one) => storage.deliveries.recordDelivery(one)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(9);
    expect(results[6]?.status).toBe('rejected');
    expect(String((results[6] as PromiseRejectedResult).reason)).toMatch(/timestamp|time zone|invalid input/i);
    const listed = await storage.deliveries.list(orgId, { limit: 20, offset: 0 });
    expect(new Set(listed.items.map((delivery) => delivery.id))).toEqual(new Set(writes.filter((one) => one !== bad).map((one) => one.delivery.id)));
    // The refused delivery's key was not claimed: sent again, well formed, it is new.
    expect(await storage.deliveries.recordDelivery({ ...bad, delivery: { ...bad.delivery, received_at: fixtureTime(1) } })).toEqual({ duplicateOf: null });
  });

  it.runIf(runs)('keeps dedup exact when two processes batch redeliveries of the same keys, within a batch and across batches', async () => {
    const processes = await backend.open();
    const orgId = uniqueId('org');
    const KEYS = 30;
    const COPIES = 4;
    const keys = Array.from({ length: KEYS }, () => `id:${uniqueId('delivery')}`);
    const copies = keys.flatMap((key) => Array.from({ length: COPIES }, () => write({ org_id: orgId, dedup_key: key })));
    // Copy c of every key goes to process c % 2, all at once.
    const answers = await Promise.all(copies.map((one, index) => (processes[index % 2] as StorageAdapter).deliveries.recordDelivery(one)));
    const winners = new Map<string, string>();
    for (const [index, answer] of answers.entries()) {
      const one = copies[index] as DeliveryWrite;
      if (answer.duplicateOf === null) {
        expect(winners.has(one.delivery.dedup_key)).toBe(false);
        winners.set(one.delivery.dedup_key, one.delivery.id);
      }
    }
    expect(winners.size).toBe(KEYS);
    for (const [index, answer] of answers.entries()) {
      const one = copies[index] as DeliveryWrite;
      if (answer.duplicateOf !== null) expect(answer.duplicateOf).toBe(winners.get(one.delivery.dedup_key));
    }
    // A second wave of every key, later: every copy names the first wave's winner.
    const later = keys.flatMap((key) => [0, 1].map(() => write({ org_id: orgId, dedup_key: key }, { now: fixtureTime(60) })));
    const again = await Promise.all(later.map((one, index) => (processes[index % 2] as StorageAdapter).deliveries.recordDelivery(one)));
    expect(again.map((answer) => answer.duplicateOf)).toEqual(later.map((one) => winners.get(one.delivery.dedup_key)));
    expect((await processes[0].deliveries.list(orgId, { limit: 1, offset: 0 })).total).toBe(KEYS);
  });
});
