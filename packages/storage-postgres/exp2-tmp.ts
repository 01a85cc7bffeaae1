import pg from 'pg';
import { readFileSync } from 'node:fs';
import { makeDeliveryRecord, makeDedupClaim } from '@agent-platform/testing/fixtures';
import { createPostgresStorage } from './src/index.js';
import { statementFor, batchParams, prepareDeliveryWrite } from './src/repositories/delivery-batch.js';
import { createThrowawayDatabase } from './test-support/postgres-server.js';
const db = await createThrowawayDatabase();
const storage = await createPostgresStorage({ connectionString: db.url });
const payload = readFileSync('/tmp/payload.json', 'utf8');
const client = new pg.Client({ connectionString: db.url });
await client.connect();
for (let round = 0; round < 30; round++) {
  const writes = Array.from({ length: 16 }, () => {
    const delivery = makeDeliveryRecord({ payload_json: payload, org_id: `org-${round % 7}` });
    const { deliveryId: _, ...claim } = makeDedupClaim(delivery);
    return prepareDeliveryWrite({ delivery, runs: [], claim });
  });
  const res = await client.query('EXPLAIN (ANALYZE, BUFFERS, WAL) ' + statementFor(16), batchParams(writes));
  if (round === 29) console.log(res.rows.map((r) => r['QUERY PLAN']).join('\n'));
}
await storage.close();
await client.end();
await db.drop();
