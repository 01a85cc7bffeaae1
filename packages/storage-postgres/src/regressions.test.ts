/**
 * Behaviour beyond the conformance suite, on both backends: conflicts caught inside a transaction,
 * characters `jsonb` cannot hold, forged page ids, finished transactions, pruning of claims.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError, StorageConflictError } from '@agent-platform/core';
import type { StorageAdapter, StorageRepositories } from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeConversationEvent,
  makeConversationRecord,
  makeDeliveryRecord,
  makeRunRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeWebhookRecord,
  uniqueId,
} from '@agent-platform/testing';
import { createPGliteStorage, createPostgresStorage, migrate } from './index.js';
import { MAX_JSONB_DEPTH, toText } from './sql/json.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

/** Strings `jsonb` refuses or that the stored escaping must leave alone. */
const AWKWARD = [
  'nul \u0000 inside',
  '\u0000',
  'mark \uffff',
  '\uffff0',
  '\uffff\uffff',
  'slash \\u0000 text',
  '\\\u0000',
  'emoji 🎉',
  'lone \ud800 high',
  'lone \udc00 low',
  '\udc00\ud800',
  '\uffffd800',
  '\uffffj',
  'slash \\ud800 text',
];

interface Backend {
  open(): Promise<StorageAdapter>;
  /** Rows of a statement run directly on the database. */
  raw(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

function describeRegressions(name: string, backend: () => Backend): void {
  describe(`${name}: beyond the conformance suite`, () => {
    let storage: StorageAdapter;
    beforeAll(async () => {
      storage = await backend().open();
    });
    afterAll(async () => {
      await storage?.close();
    });

    it('a conflict caught inside a transaction leaves it usable, and the rest commits', async () => {
      const existingKey = makeApiKeyRecord();
      const existingRun = makeRunRecord();
      const orgId = uniqueId('org');
      const first = makeWebhookRecord({ org_id: orgId, source: 'first' });
      const second = makeWebhookRecord({ org_id: orgId, source: 'second' });
      await storage.apiKeys.insert(existingKey);
      await storage.runs.insertMany([existingRun]);
      await storage.webhooks.insert(first);
      await storage.webhooks.insert(second);
      const fresh = makeRunRecord({ org_id: existingRun.org_id });
      const kept = makeRunRecord({ org_id: existingRun.org_id });
      const settings = makeSettingsRecord();
      await storage.transaction(async (tx) => {
        await expect(tx.apiKeys.insert({ ...makeApiKeyRecord(), key_hash: existingKey.key_hash })).rejects.toBeInstanceOf(StorageConflictError);
        await expect(tx.runs.insertMany([fresh, { ...existingRun, status: 'RUNNING' }])).rejects.toBeInstanceOf(StorageConflictError);
        await expect(tx.webhooks.update({ ...second, source: 'first' })).rejects.toBeInstanceOf(StorageConflictError);
        expect(await tx.runs.get(existingRun.org_id, fresh.id)).toBeNull();
        await tx.runs.insertMany([kept]);
        await tx.settings.put(settings);
      });
      expect(await storage.runs.get(existingRun.org_id, fresh.id)).toBeNull();
      expect(await storage.runs.get(existingRun.org_id, kept.id)).toEqual(kept);
      expect(await storage.settings.get(settings.user_id)).toEqual(settings);
      expect(await storage.webhooks.getBySource(orgId, 'second')).toEqual(second);
    });

    it('stores and returns U+0000, lone surrogates, U+FFFF and backslashes exactly, in records and events', async () => {
      const settings = makeSettingsRecord({ values: { language: AWKWARD.join('|') } });
      await storage.settings.put(settings);
      expect(await storage.settings.get(settings.user_id)).toEqual(settings);

      const delivery = makeDeliveryRecord({ payload_json: JSON.stringify({ text: AWKWARD }), detail: '\u0000' });
      await storage.deliveries.insert(delivery);
      expect(await storage.deliveries.get(delivery.org_id, delivery.id)).toEqual(delivery);
      expect((await storage.deliveries.list(delivery.org_id, { limit: 10, offset: 0 })).items).toEqual([delivery]);

      const conversation = makeConversationRecord({ title: 'a\u0000b' });
      await storage.conversations.insert(conversation);
      const { seq: _seq, ...event } = makeConversationEvent({
        conversation_id: conversation.id,
        message: AWKWARD.join(''),
        data: { lines: AWKWARD, 'key\u0000with nul': '\uffff' },
      });
      const stored = await storage.conversations.appendEvents(conversation.id, [event]);
      expect(stored).toEqual([{ ...event, seq: 0 }]);
      expect((await storage.conversations.listEvents(conversation.id, { limit: 10 })).items).toEqual(stored);
      expect(await storage.conversations.get(conversation.id)).toEqual(conversation);
    });

    it('keeps the stored jsonb readable: plain records are stored as given', async () => {
      const key = makeApiKeyRecord({ name: 'plain' });
      await storage.apiKeys.insert(key);
      const [row] = await backend().raw('SELECT data->>$2 AS name FROM agent_platform.api_keys WHERE id = $1', [key.id, 'name']);
      expect(row?.name).toBe('plain');
    });

    it("keeps text columns equal to data->>'field', escaped alike, so a column derived in SQL matches a parameter", async () => {
      const text = 'x\u0000\ud800\uffff0\udc00y';
      const webhook = makeWebhookRecord({ id: `${uniqueId('wh')}${text}`, org_id: `${uniqueId('org')}${text}`, source: text, name: text });
      await storage.webhooks.insert(webhook);
      const rows = await backend().raw(
        `SELECT id = data->>'id' AS id, org_id = data->>'org_id' AS org, source = data->>'source' AS source, data->>'name' AS name
         FROM agent_platform.webhooks WHERE id = $1`,
        [toText(webhook.id)],
      );
      expect(rows).toEqual([{ id: true, org: true, source: true, name: 'x\uffff0\uffffd800\uffff\uffff0\uffffdc00y' }]);
      // Columns taken from the jsonb in SQL (runs.insertMany) hold the same escaped text.
      const run = makeRunRecord({ id: `${uniqueId('run')}${text}`, org_id: webhook.org_id, automation_id: `${uniqueId('auto')}${text}` });
      await storage.runs.insertMany([run]);
      expect(await backend().raw('SELECT id, org_id, automation_id FROM agent_platform.runs WHERE id = $1', [toText(run.id)])).toEqual([
        { id: toText(run.id), org_id: toText(run.org_id), automation_id: toText(run.automation_id) },
      ]);
      expect(await storage.runs.listByAutomation(run.org_id, run.automation_id, { limit: 5, offset: 0 })).toEqual({ items: [run], total: 1 });
    });

    it('keeps what the database parses shallow: parts nested deeper than the limit are stored as JSON text', async () => {
      let deep: unknown = 'leaf \u0000';
      for (let level = 0; level < 10_000; level += 1) deep = [deep];
      const task = makeStartTaskRecord({ request: { deep } });
      await storage.startTasks.insert(task);
      const [row] = await backend().raw(
        `SELECT jsonb_typeof(data->'request'->'deep') AS kind, data->>'id' AS id FROM agent_platform.start_tasks WHERE id = $1`,
        [task.id],
      );
      expect(row).toEqual({ kind: 'array', id: task.id });
      // The record is level 1, `deep` level 3: arrays down to level MAX_JSONB_DEPTH, then a string of JSON text.
      const kindAt = async (level: number) => {
        const path = `{request,deep${',0'.repeat(level - 3)}}`;
        const [inner] = await backend().raw('SELECT jsonb_typeof(data #> $2::text[]) AS kind FROM agent_platform.start_tasks WHERE id = $1', [task.id, path]);
        return inner?.kind;
      };
      expect(await kindAt(MAX_JSONB_DEPTH)).toBe('array');
      expect(await kindAt(MAX_JSONB_DEPTH + 1)).toBe('string');
      const stored = await storage.startTasks.get(task.id);
      let value: unknown = (stored?.request as { deep: unknown } | undefined)?.deep;
      let depth = 0;
      while (Array.isArray(value)) {
        value = value[0];
        depth += 1;
      }
      expect({ depth, value }).toEqual({ depth: 10_000, value: 'leaf \u0000' });
    });

    it('rejects a page id whose instant the database cannot read as VALIDATION_FAILED', async () => {
      const forged = Buffer.from(JSON.stringify(['0000-01-01T00:00:00Z', 'x'])).toString('base64url');
      const outcome = storage.sandboxes.listByUser(uniqueId('user'), { limit: 5, pageId: forged });
      await expect(outcome).rejects.toBeInstanceOf(PlatformError);
      await expect(outcome).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    });

    it("rejects a transaction with fn's own thrown value, whatever it is", async () => {
      await expect(storage.transaction(() => Promise.reject('a string'))).rejects.toBe('a string');
      const error = Object.assign(new Error('looks like a unique violation'), { code: '23505' });
      await expect(storage.transaction(async () => Promise.reject(error))).rejects.toBe(error);
    });

    it('refuses to run through the repositories of a finished transaction', async () => {
      let leaked: StorageRepositories | undefined;
      await storage.transaction(async (tx) => {
        leaked = tx;
      });
      await expect(leaked?.settings.get(uniqueId('user'))).rejects.toThrow(/transaction has finished/);
    });

    it('prunes expired dedup claims in the background as claims go on', async () => {
      const adapter = await backend().open();
      const orgId = uniqueId('org');
      const claim = (key: string, now: number, expires: number) =>
        adapter.deliveries.claimDedupKey({ orgId, source: 'github', key, deliveryId: uniqueId('dlv'), now: fixtureTime(now), expiresAt: fixtureTime(expires) });
      for (let n = 0; n < 40; n += 1) expect(await claim(`old-${n}`, 0, 1)).toBeNull();
      for (let n = 0; n < 64; n += 1) expect(await claim(`new-${n}`, 100, 200)).toBeNull();
      await adapter.close(); // waits for the background pruning
      const [row] = await backend().raw('SELECT count(*)::int AS n FROM agent_platform.dedup_claims WHERE org_id = $1 AND expires_at <= $2', [
        orgId,
        fixtureTime(1),
      ]);
      expect(row?.n).toBe(0);
    });
  });
}

let pglite: PGlite;
describe('pglite', () => {
  beforeAll(async () => {
    pglite = await PGlite.create();
    await migrate({ db: pglite });
  }, 60_000);
  afterAll(async () => {
    await pglite?.close();
  });
  describeRegressions('pglite', () => ({
    open: () => createPGliteStorage({ db: pglite }),
    raw: async (text, params) => (await pglite.query<Record<string, unknown>>(text, params)).rows,
  }));
});

const available = await postgresAvailable();
describe.skipIf(!available)('postgres', () => {
  let database: ThrowawayDatabase;
  beforeAll(async () => {
    database = await createThrowawayDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  describeRegressions('postgres', () => ({
    open: () => createPostgresStorage({ connectionString: database.url }),
    raw: async (text, params) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(text, params)).rows;
      } finally {
        await client.end();
      }
    },
  }));
});
