/**
 * Conformance: `webhooks` repository. Every lookup is scoped by org: another org's id or source
 * must look exactly like a missing one.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import { fixtureTime, makeWebhookRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeWebhooks(ctx: SuiteContext): void {
  describe('webhooks', () => {
    it('get and getBySource return null for unknown webhooks', async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.webhooks.get(orgId, uniqueId('wh'))).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(orgId, 'nothing-here')).toBeNull();
    });

    it('insert then get and getBySource return the record', async () => {
      const record = makeWebhookRecord({
        event_key_header: 'X-Event',
        delivery_id_header: 'X-Delivery',
        signature_scheme: 'stripe',
        previous_secret: 'sealed:old',
        previous_secret_expires_at: fixtureTime(3600),
      });
      await ctx.adapter.webhooks.insert(record);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, record.source)).toEqual(record);
    });

    it('keeps a webhook’s kind, and reads one stored before kinds existed without one', async () => {
      const gitlab = makeWebhookRecord({
        kind: 'gitlab',
        signature_scheme: 'gitlab-token',
        signature_header: 'X-Gitlab-Token',
        delivery_id_header: 'Idempotency-Key',
      });
      const legacy = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(gitlab);
      await ctx.adapter.webhooks.insert(legacy);
      expect(await ctx.adapter.webhooks.getBySource(gitlab.org_id, gitlab.source)).toEqual(gitlab);
      const read = await ctx.adapter.webhooks.get(legacy.org_id, legacy.id);
      expect(read).toEqual(legacy);
      expect(read && 'kind' in read).toBe(false);
      expect(await ctx.adapter.webhooks.update({ ...gitlab, name: 'renamed' })).toBe(true);
      expect(await ctx.adapter.webhooks.get(gitlab.org_id, gitlab.id)).toEqual({ ...gitlab, name: 'renamed' });
    });

    it('insert of a source the org already has throws StorageConflictError and stores nothing', async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      const duplicate = makeWebhookRecord({ org_id: record.org_id, source: record.source, name: 'other' });
      await expect(ctx.adapter.webhooks.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.webhooks.get(record.org_id, duplicate.id)).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, record.source)).toEqual(record);
      expect(await ctx.adapter.webhooks.list(record.org_id, { limit: 10, offset: 0 })).toEqual({
        items: [record],
        total: 1,
      });
    });

    it('insert with an existing id throws StorageConflictError, even in another org', async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      const duplicate = makeWebhookRecord({ id: record.id });
      await expect(ctx.adapter.webhooks.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.webhooks.get(duplicate.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(duplicate.org_id, duplicate.source)).toBeNull();
    });

    it('the same source in another org is a separate webhook', async () => {
      const mine = makeWebhookRecord({ source: 'stripe' });
      const theirs = makeWebhookRecord({ source: 'stripe' });
      await ctx.adapter.webhooks.insert(mine);
      await ctx.adapter.webhooks.insert(theirs);
      expect(await ctx.adapter.webhooks.getBySource(mine.org_id, 'stripe')).toEqual(mine);
      expect(await ctx.adapter.webhooks.getBySource(theirs.org_id, 'stripe')).toEqual(theirs);
    });

    it("get and getBySource return null for another org's webhook", async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      const otherOrg = uniqueId('org');
      expect(await ctx.adapter.webhooks.get(otherOrg, record.id)).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(otherOrg, record.source)).toBeNull();
    });

    it("list returns only the org's webhooks, oldest first, then by id", async () => {
      const orgId = uniqueId('org');
      const base = uniqueId('wh');
      const late = makeWebhookRecord({ org_id: orgId, id: `${base}-a`, created_at: fixtureTime(30) });
      const tieB = makeWebhookRecord({ org_id: orgId, id: `${base}-c`, created_at: fixtureTime(20) });
      const tieA = makeWebhookRecord({ org_id: orgId, id: `${base}-b`, created_at: fixtureTime(20) });
      const early = makeWebhookRecord({ org_id: orgId, id: `${base}-d`, created_at: fixtureTime(10) });
      const elsewhere = makeWebhookRecord({ created_at: fixtureTime(15) });
      for (const record of [tieB, late, elsewhere, early, tieA]) await ctx.adapter.webhooks.insert(record);
      expect(await ctx.adapter.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [early, tieA, tieB, late],
        total: 4,
      });
    });

    it('list pages with limit and offset while total counts every webhook of the org', async () => {
      const orgId = uniqueId('org');
      const records = [0, 1, 2, 3, 4].map((n) => makeWebhookRecord({ org_id: orgId, created_at: fixtureTime(n) }));
      for (const record of [...records].reverse()) await ctx.adapter.webhooks.insert(record);
      const list = (limit: number, offset: number) => ctx.adapter.webhooks.list(orgId, { limit, offset });
      expect(await list(2, 0)).toEqual({ items: records.slice(0, 2), total: 5 });
      expect(await list(2, 2)).toEqual({ items: records.slice(2, 4), total: 5 });
      expect(await list(2, 4)).toEqual({ items: records.slice(4), total: 5 });
      expect(await list(10, 5)).toEqual({ items: [], total: 5 });
      expect(await list(1, 100)).toEqual({ items: [], total: 5 });
    });

    it('list of an org without webhooks is empty', async () => {
      expect(await ctx.adapter.webhooks.list(uniqueId('org'), { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it('update replaces the stored record and returns true', async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      const updated = {
        ...record,
        name: 'Renamed',
        enabled: false,
        event_key_header: 'X-Event',
        secret: 'sealed:new',
        previous_secret: record.secret,
        previous_secret_expires_at: fixtureTime(86_400),
        updated_at: fixtureTime(100),
      };
      expect(await ctx.adapter.webhooks.update(updated)).toBe(true);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toEqual(updated);
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, record.source)).toEqual(updated);
      expect((await ctx.adapter.webhooks.list(record.org_id, { limit: 10, offset: 0 })).items).toEqual([updated]);
    });

    it('update returns false for an unknown id and stores nothing', async () => {
      const record = makeWebhookRecord();
      expect(await ctx.adapter.webhooks.update(record)).toBe(false);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, record.source)).toBeNull();
    });

    it("update returns false for another org's webhook and leaves it unchanged", async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      const hijack = { ...record, org_id: uniqueId('org'), name: 'Hijacked' };
      expect(await ctx.adapter.webhooks.update(hijack)).toBe(false);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.webhooks.get(hijack.org_id, record.id)).toBeNull();
    });

    it('update that changes the source moves the source lookup', async () => {
      const record = makeWebhookRecord({ source: 'before' });
      await ctx.adapter.webhooks.insert(record);
      const updated = { ...record, source: 'after' };
      expect(await ctx.adapter.webhooks.update(updated)).toBe(true);
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, 'after')).toEqual(updated);
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, 'before')).toBeNull();
      await ctx.adapter.webhooks.insert(makeWebhookRecord({ org_id: record.org_id, source: 'before' }));
    });

    it('update to a source another webhook of the org has throws StorageConflictError', async () => {
      const orgId = uniqueId('org');
      const first = makeWebhookRecord({ org_id: orgId, source: 'first' });
      const second = makeWebhookRecord({ org_id: orgId, source: 'second' });
      await ctx.adapter.webhooks.insert(first);
      await ctx.adapter.webhooks.insert(second);
      await expect(ctx.adapter.webhooks.update({ ...second, source: 'first' })).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.webhooks.getBySource(orgId, 'first')).toEqual(first);
      expect(await ctx.adapter.webhooks.get(orgId, second.id)).toEqual(second);
    });

    it('delete returns true and removes the webhook from every lookup', async () => {
      const record = makeWebhookRecord();
      const kept = makeWebhookRecord({ org_id: record.org_id });
      await ctx.adapter.webhooks.insert(record);
      await ctx.adapter.webhooks.insert(kept);
      expect(await ctx.adapter.webhooks.delete(record.org_id, record.id)).toBe(true);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, record.source)).toBeNull();
      expect(await ctx.adapter.webhooks.list(record.org_id, { limit: 10, offset: 0 })).toEqual({
        items: [kept],
        total: 1,
      });
    });

    it('delete returns false for an unknown or already deleted id', async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.webhooks.delete(orgId, uniqueId('wh'))).toBe(false);
      const record = makeWebhookRecord({ org_id: orgId });
      await ctx.adapter.webhooks.insert(record);
      expect(await ctx.adapter.webhooks.delete(orgId, record.id)).toBe(true);
      expect(await ctx.adapter.webhooks.delete(orgId, record.id)).toBe(false);
    });

    it("delete returns false for another org's webhook and keeps it", async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      expect(await ctx.adapter.webhooks.delete(uniqueId('org'), record.id)).toBe(false);
      expect(await ctx.adapter.webhooks.get(record.org_id, record.id)).toEqual(record);
    });

    it('a deleted webhook frees its id and source for a new insert', async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      await ctx.adapter.webhooks.delete(record.org_id, record.id);
      const again = makeWebhookRecord({ id: record.id, org_id: record.org_id, source: record.source, name: 'again' });
      await ctx.adapter.webhooks.insert(again);
      expect(await ctx.adapter.webhooks.getBySource(record.org_id, record.source)).toEqual(again);
    });
  });
}
