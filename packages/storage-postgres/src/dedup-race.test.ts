/**
 * Redelivery across server processes: two adapters (two pools, as two processes would have) on
 * one database race to claim the same delivery key; exactly one wins, and every other claimer
 * learns the winner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord, StorageAdapter } from '@agent-platform/core';
import { fixtureTime, makeDedupClaim, makeDeliveryRecord, uniqueId } from '@agent-platform/testing';
import { createPostgresStorage } from './index.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const available = await postgresAvailable();
const CLAIMERS = 20;

describe.skipIf(!available)('claimDedupKey across two server processes', () => {
  let database: ThrowawayDatabase;
  let processes: StorageAdapter[];

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    processes = await Promise.all([createPostgresStorage({ connectionString: database.url }), createPostgresStorage({ connectionString: database.url })]);
  });

  afterAll(async () => {
    await Promise.all((processes ?? []).map((storage) => storage.close()));
    await database?.drop();
  });

  const claimOf = (delivery: DeliveryRecord) => makeDedupClaim(delivery);

  it(`of ${CLAIMERS} concurrent claims of one key, exactly one wins`, async () => {
    const orgId = uniqueId('org');
    const key = `id:${uniqueId('delivery')}`;
    const attempts = Array.from({ length: CLAIMERS }, () => makeDeliveryRecord({ org_id: orgId, dedup_key: key }));
    const holders = await Promise.all(attempts.map((delivery, n) => (processes[n % 2] as StorageAdapter).deliveries.claimDedupKey(claimOf(delivery))));
    const winners = attempts.filter((_, n) => holders[n] === null);
    expect(winners).toHaveLength(1);
    expect(holders.filter((holder) => holder !== null)).toEqual(Array(CLAIMERS - 1).fill(winners[0]?.id));
  });

  it(`of ${CLAIMERS} concurrent ingest transactions of one delivery, exactly one records it as new`, async () => {
    const orgId = uniqueId('org');
    const key = `id:${uniqueId('delivery')}`;
    const attempts = Array.from({ length: CLAIMERS }, () => makeDeliveryRecord({ org_id: orgId, dedup_key: key }));
    const holders = await Promise.all(
      attempts.map((delivery, n) =>
        (processes[n % 2] as StorageAdapter).transaction(async (tx) => {
          const holder = await tx.deliveries.claimDedupKey(claimOf(delivery));
          await tx.deliveries.insert(holder === null ? delivery : { ...delivery, status: 'duplicate', detail: holder });
          return holder;
        }),
      ),
    );
    const winners = attempts.filter((_, n) => holders[n] === null);
    expect(winners).toHaveLength(1);
    const [either] = processes as [StorageAdapter];
    expect(await either.deliveries.list(orgId, { limit: 5, offset: 0, status: 'matched' })).toEqual({ items: winners, total: 1 });
    expect((await either.deliveries.list(orgId, { limit: 1, offset: 0, status: 'duplicate' })).total).toBe(CLAIMERS - 1);
  });

  it('lets exactly one of the racing claimers take over an expired claim', async () => {
    const orgId = uniqueId('org');
    const key = `id:${uniqueId('delivery')}`;
    const first = makeDeliveryRecord({ org_id: orgId, dedup_key: key });
    expect(await processes[0]?.deliveries.claimDedupKey({ ...claimOf(first), expiresAt: fixtureTime(10) })).toBeNull();
    const attempts = Array.from({ length: CLAIMERS }, () => makeDeliveryRecord({ org_id: orgId, dedup_key: key }));
    const holders = await Promise.all(
      attempts.map((delivery, n) =>
        (processes[n % 2] as StorageAdapter).deliveries.claimDedupKey({ ...claimOf(delivery), now: fixtureTime(20), expiresAt: fixtureTime(999) }),
      ),
    );
    const winners = attempts.filter((_, n) => holders[n] === null);
    expect(winners).toHaveLength(1);
    expect(new Set(holders.filter((holder) => holder !== null))).toEqual(new Set([winners[0]?.id]));
  });
});
