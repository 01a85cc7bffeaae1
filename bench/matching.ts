/**
 * Matching scale: events per second of in-process ingest — signature check, JSON
 * parse, dedup, event key, matching, and the delivery + runs transaction on memory storage —
 * with 100 and with 100,000 automations in the same org and source. Each event matches exactly
 * one automation in both cases (plus five wildcard automations that never match), so the two
 * runs do the same work per event except for finding the candidates. Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source matching.ts [seconds-per-case]
 */
import { createAesGcmSecretBox, createAgentPlatform, signatureHeaders } from '@agent-platform/core';
import { makeAutomationRecord } from '@agent-platform/testing/fixtures';
import { createMemoryStorage } from '@agent-platform/storage-memory';

const seconds = Number(process.argv[2] ?? 5);
const SECRET = 'bench-secret-0123456789';

async function measure(automationCount: number): Promise<{ eventsPerSecond: number; matched: number }> {
  const storage = createMemoryStorage();
  const platform = createAgentPlatform({
    storage,
    secrets: createAesGcmSecretBox({ keys: { k: Buffer.alloc(32, 3).toString('base64') } }),
    publicUrl: 'http://localhost',
  });
  const me = { userId: 'alice', orgId: 'acme' };
  await platform.webhooks.register(me, { name: 'bench', source: 'bench', webhook_secret: SECRET });
  // Insert through storage directly: creating 100,000 automations through the service would
  // only measure validation.
  const record = (id: string, on: string, filter: string | null) =>
    makeAutomationRecord({ id, org_id: 'acme', enabled: true, trigger: { type: 'event', source: 'bench', on, filter } });
  for (let i = 0; i < automationCount; i++) await storage.automations.insert(record(`auto_${i}`, `type.${i}`, "action == 'create'"));
  for (let i = 0; i < 5; i++) await storage.automations.insert(record(`glob_${i}`, `other.${i}.*`, null));

  const body = Buffer.from(JSON.stringify({ type: 'type.0', action: 'create', data: { title: 'x'.repeat(500) } }));
  const bodies = Array.from({ length: 100 }, (_, j) => Buffer.from(body.toString().replace('"type.0"', `"type.${j}"`)));
  const signed = bodies.map((one) => ({ body: one, headers: signatureHeaders({ scheme: 'hmac-sha256', secret: SECRET, body: one, now: new Date() }) }));

  let events = 0;
  let matched = 0;
  // Every event gets a fresh delivery id, so none is dropped as a redelivery.
  let sequence = 0;
  const run = async (until: number) => {
    while (performance.now() < until) {
      const request = signed[sequence % signed.length]!;
      const result = await platform.events.ingest('acme', 'bench', { headers: { ...request.headers, 'webhook-id': `msg_${sequence++}` }, body: request.body });
      matched += result.matched;
      events++;
    }
  };
  await run(performance.now() + 1000); // warm-up
  events = 0;
  matched = 0;
  const started = performance.now();
  await run(started + seconds * 1000);
  return { eventsPerSecond: events / ((performance.now() - started) / 1000), matched: matched / events };
}

const small = await measure(100);
const large = await measure(100_000);
console.log(
  `matching: 100 automations ${Math.round(small.eventsPerSecond)} events/s, 100000 automations ${Math.round(large.eventsPerSecond)} events/s, ratio ${(large.eventsPerSecond / small.eventsPerSecond).toFixed(2)} (target >= 0.80); matches per event ${small.matched.toFixed(2)} / ${large.matched.toFixed(2)}`,
);
