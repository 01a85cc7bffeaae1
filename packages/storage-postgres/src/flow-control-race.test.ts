/**
 * Flow control under concurrent deliveries, across two server processes (two
 * adapters with their own pools) on one PostgreSQL database: with `cancel_previous`, however the
 * deliveries interleave, exactly one run per concurrency key is left live; with a rate limit,
 * exactly `max_runs` runs are let through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  generateSecretKey,
  signatureHeaders,
  StorageUnavailableError,
  type AgentPlatform,
  type RunRecord,
} from '@agent-platform/core';
import { createPostgresStorage } from './index.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const available = await postgresAvailable();
const DELIVERIES = 24;
const alice = { userId: 'alice', orgId: 'acme' };

describe.skipIf(!available)('flow control with concurrent deliveries on PostgreSQL', () => {
  let database: ThrowawayDatabase;
  let processes: AgentPlatform[];
  let secret: string;

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    const secrets = createAesGcmSecretBox({ keys: { k: generateSecretKey() } });
    processes = await Promise.all(
      [0, 1].map(async () =>
        createAgentPlatform({
          storage: await createPostgresStorage({ connectionString: database.url }),
          secrets,
          publicUrl: 'http://localhost',
          outbound: { send: false },
        }),
      ),
    );
    // Listening, as servers do: each process hears of automations the other created.
    await Promise.all(processes.map((platform) => platform.start({ executeRuns: false })));
    const webhook = await processes[0]!.webhooks.register(alice, { name: 'Forge', source: 'forge' });
    secret = webhook.webhook_secret as string;
  });

  afterAll(async () => {
    await Promise.all((processes ?? []).map((platform) => platform.stop()));
    await database?.drop();
  });

  /**
   * One delivery, sent again on a 503 as senders do: under this much contention on one key (24
   * serializable transactions at once on a loaded machine) a delivery can exhaust its transaction's
   * retries and be refused as unavailable, having stored nothing.
   */
  async function deliver(platform: AgentPlatform, body: Buffer) {
    for (let attempt = 1; ; attempt++) {
      const headers = signatureHeaders({ scheme: 'hmac-sha256', secret, body, now: new Date() });
      try {
        return await platform.events.ingest('acme', 'forge', { headers, body });
      } catch (error) {
        if (!(error instanceof StorageUnavailableError) || attempt === 5) throw error;
      }
    }
  }

  /** `count` deliveries at once, alternating between the two processes, each for `keyOf(n)`. */
  async function deliverConcurrently(on: string, count: number, keyOf: (n: number) => number): Promise<string[]> {
    const results = await Promise.all(
      Array.from({ length: count }, (_, n) => {
        const body = Buffer.from(JSON.stringify({ type: on, pull_request: { number: keyOf(n) }, n }));
        return deliver(processes[n % 2]!, body);
      }),
    );
    return results.flatMap((result) => result.runs_created);
  }

  /** An automation, created through one process and matched by both (every process's matching sees a change within a second). */
  async function automationOnBoth(input: Record<string, unknown>) {
    const automation = await processes[0]!.automations.create(alice, input);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    return automation;
  }

  async function runsOf(automationId: string): Promise<RunRecord[]> {
    const { items } = await processes[0]!.storage.runs.listByAutomation('acme', automationId, { limit: 1000, offset: 0 });
    return items;
  }

  it(`cancel_previous leaves exactly one live run per key among ${DELIVERIES} concurrent deliveries`, async () => {
    const automation = await automationOnBoth({
      name: 'review',
      instructions: 'Review',
      trigger: { type: 'event', source: 'forge', on: 'pr.cancel' },
      concurrency_key: 'pull_request.number',
      on_conflict: 'cancel_previous',
    });
    const created = await deliverConcurrently('pr.cancel', DELIVERIES, (n) => (n % 3 === 0 ? 8 : 7));
    expect(created).toHaveLength(DELIVERIES);
    const runs = await runsOf(automation.id);
    expect(runs).toHaveLength(DELIVERIES);
    for (const key of ['7', '8']) {
      const ofKey = runs.filter((run) => run.concurrency_key === key);
      const live = ofKey.filter((run) => run.status === 'PENDING' || run.status === 'RUNNING');
      expect(live, `key ${key}`).toHaveLength(1);
      const cancelled = ofKey.filter((run) => run.status === 'CANCELLED');
      expect(cancelled).toHaveLength(ofKey.length - 1);
      // Each was superseded by a run of the same key.
      for (const run of cancelled) expect(run.error_detail).toMatch(new RegExp(`^superseded by run \\S+ \\(delivery \\S+\\) with concurrency key "${key}"$`));
    }
  });

  it(`a rate limit of 5 lets exactly 5 of ${DELIVERIES} concurrent deliveries run`, async () => {
    const automation = await automationOnBoth({
      name: 'limited',
      instructions: 'Review',
      trigger: { type: 'event', source: 'forge', on: 'pr.limited' },
      rate_limit: { max_runs: 5, per_seconds: 3600 },
    });
    await deliverConcurrently('pr.limited', DELIVERIES, (n) => n);
    const runs = await runsOf(automation.id);
    expect(runs.filter((run) => run.status === 'PENDING')).toHaveLength(5);
    expect(runs.filter((run) => run.status === 'SKIPPED')).toHaveLength(DELIVERIES - 5);
  });

  it('skip leaves exactly one run per key, the rest SKIPPED', async () => {
    const automation = await automationOnBoth({
      name: 'skipper',
      instructions: 'Review',
      trigger: { type: 'event', source: 'forge', on: 'pr.skip' },
      concurrency_key: 'pull_request.number',
      on_conflict: 'skip',
    });
    await deliverConcurrently('pr.skip', DELIVERIES, () => 42);
    const runs = await runsOf(automation.id);
    expect(runs.filter((run) => run.status === 'PENDING')).toHaveLength(1);
    expect(runs.filter((run) => run.status === 'SKIPPED')).toHaveLength(DELIVERIES - 1);
  });
});
