import pg from 'pg';
import { readFileSync } from 'node:fs';
import { makeDeliveryRecord, makeDedupClaim } from '@agent-platform/testing/fixtures';
import { createPostgresStorage } from './src/index.js';
import { createThrowawayDatabase } from './test-support/postgres-server.js';
const db = await createThrowawayDatabase();
const storage = await createPostgresStorage({ connectionString: db.url, groupCommit: { maxInFlight: 1 } });
const payload = readFileSync('/tmp/payload.json', 'utf8');
const client = new pg.Client({ connectionString: db.url });
await client.connect();
// Log statement durations: use pg's own client timing via auto_explain-like: run batches and measure wall time.
for (const size of [1, 16, 32]) {
  const t0 = performance.now();
  let n = 0;
  for (let round = 0; round < 20; round++) {
    const writes = Array.from({ length: size }, () => {
      const delivery = makeDeliveryRecord({ payload_json: payload, org_id: `org-${round % 7}` });
      const { deliveryId: _, ...claim } = makeDedupClaim(delivery);
      return { delivery, runs: [], claim };
    });
    await Promise.all(writes.map((w) => storage.deliveries.recordDelivery(w)));
    n += size;
  }
  console.log(size, (((performance.now() - t0) / n) * 1000).toFixed(0), 'µs/delivery wall');
}
await client.query("LOAD 'auto_explain'").catch((e) => console.log('no auto_explain', e.message));
await storage.close();
await client.end();
await db.drop();
