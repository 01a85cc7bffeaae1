/**
 * Conformance: values an attacker (or a careless client) can send. JSON allows lone surrogates
 * ("\ud800" without its pair) and U+0000 in any string, and a backend may not (PostgreSQL's
 * `jsonb` and `text` refuse both): whatever a record holds is stored and given back exactly — in
 * every free-text field, and in the user-chosen keys a record is found by (a webhook's source, an
 * org id, a dedup key, a GitHub login). A lookup, update or delete by a key with such characters
 * finds exactly the record stored under it, or nothing — it never throws. Values nested deeper
 * than any backend nests natively (10,000 levels) are stored and read back too.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { DeliveryStatus, RunStatus, StorageRepositories } from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationEvent,
  makeConversationRecord,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeWebhookRecord,
  uniqueId,
} from '../fixtures.js';
import type { SuiteContext } from './context.js';
import { collectPages } from './paging.js';

/**
 * Strings with lone surrogates (a high one alone, a low one alone, a reversed pair, at either end),
 * U+0000, and look-alikes of an escaping an adapter might use (U+FFFF followed by "0", "d800",
 * "j"; a backslash escape spelled out as text), beside a proper surrogate pair.
 */
export const HOSTILE_TEXTS: readonly string[] = [
  'high \ud800 alone',
  'low \udc00 alone',
  'reversed \udc00\ud800 pair',
  '\ud800',
  '\udfff',
  '\udbffat the start',
  'at the end\ud800',
  '\udc00at the start',
  'at the end\udfff',
  'nul \u0000 inside',
  '\u0000',
  '\u0000\ud800\u0000\udc00',
  'a pair \ud83d\ude00 then \ud800 alone',
  'look-alikes \uffff \uffff0 \uffffd800 \uffffj \uffff\uffff',
  'escapes as text \\u0000 \\ud800 \\\\u0000',
];

/** Suffixes that make a key no record has, in every way a backend may trip over. */
const KEY_SUFFIXES: readonly string[] = ['\u0000', '\ud800', '\udc00', '\udc00\ud800', '\u0000\ud800\uffff', '\uffff0'];

/** Fresh keys, unknown to the store, each with U+0000 or a lone surrogate (at the end, and at the start). */
function unknownKeys(prefix: string): string[] {
  return KEY_SUFFIXES.flatMap((suffix) => [`${uniqueId(prefix)}${suffix}`, `${suffix}${uniqueId(prefix)}`]);
}

/** Nested `depth` levels deep, arrays and objects in turn, around `leaf`. Built without recursion. */
export function nestedValue(depth: number, leaf: unknown = 'leaf'): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { level, inner: value };
  return value;
}

/** JSON text nested `depth` levels deep, built without recursion. */
export function nestedJsonText(depth: number): string {
  const half = Math.floor(depth / 2);
  return `${'{"a":['.repeat(half)}"leaf \\u0000 \\ud800"${']}'.repeat(half)}`;
}

/** Deep equality of JSON values without recursion (vitest's `toEqual` recurses). */
export function sameJson(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      pending.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/** Every lookup, update and delete by `key` in each position it can take; each must find nothing. */
async function expectNothingFound(repos: StorageRepositories, key: string, orgId: string): Promise<void> {
  expect(await repos.settings.get(key)).toBeNull();
  expect(await repos.providerTokens.get(key)).toBeNull();
  await repos.providerTokens.delete(key);

  expect(await repos.apiKeys.get(key)).toBeNull();
  expect(await repos.apiKeys.getByHash(key)).toBeNull();
  expect(await repos.apiKeys.listByUser(key)).toEqual([]);
  await repos.apiKeys.touch(key, fixtureTime(1));
  expect(await repos.apiKeys.delete(key)).toBe(false);

  expect(await repos.webhooks.get(orgId, key)).toBeNull();
  expect(await repos.webhooks.get(key, key)).toBeNull();
  expect(await repos.webhooks.getBySource(key, 'github')).toBeNull();
  expect(await repos.webhooks.getBySource(orgId, key)).toBeNull();
  expect(await repos.webhooks.list(key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.webhooks.update(makeWebhookRecord({ id: key, org_id: orgId }))).toBe(false);
  expect(await repos.webhooks.update(makeWebhookRecord({ org_id: key, source: key }))).toBe(false);
  expect(await repos.webhooks.delete(orgId, key)).toBe(false);
  expect(await repos.webhooks.delete(key, key)).toBe(false);

  expect(await repos.automations.get(orgId, key)).toBeNull();
  expect(await repos.automations.get(key, key)).toBeNull();
  expect(await repos.automations.list(key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.automations.listEnabledBySource(key, 'github')).toEqual([]);
  expect(await repos.automations.listEnabledBySource(orgId, key)).toEqual([]);
  expect(await repos.automations.update(makeAutomationRecord({ id: key, org_id: orgId }))).toBe(false);
  await repos.automations.markTriggered(orgId, [key], fixtureTime(1));
  await repos.automations.markTriggered(key, [key, uniqueId('auto')], fixtureTime(1));
  expect(await repos.automations.delete(orgId, key)).toBe(false);

  expect(await repos.runs.get(orgId, key)).toBeNull();
  expect(await repos.runs.get(key, key)).toBeNull();
  expect(await repos.runs.listByAutomation(orgId, key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.runs.listByAutomation(key, key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.runs.listByStatus(key as RunStatus, 10)).toEqual([]);
  expect(await repos.runs.transition(orgId, key, { from: ['PENDING', 'RUNNING'] }, { error_detail: key })).toBeNull();
  expect(await repos.runs.transition(key, key, { from: ['RUNNING'], leaseOwner: key }, { status: 'PENDING' })).toBeNull();
  expect(await repos.runs.transition(orgId, key, { from: [key as RunStatus] }, { status: key as RunStatus })).toBeNull();

  expect(await repos.deliveries.get(orgId, key)).toBeNull();
  expect(await repos.deliveries.get(key, key)).toBeNull();
  expect(await repos.deliveries.list(key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.deliveries.list(orgId, { limit: 10, offset: 0, source: key })).toEqual({ items: [], total: 0 });
  expect(await repos.deliveries.list(orgId, { limit: 10, offset: 0, status: key as DeliveryStatus })).toEqual({ items: [], total: 0 });

  expect(await repos.githubLinks.delete('account', key, orgId)).toBe(false);
  expect(await repos.githubLinks.delete('installation', key, key)).toBe(false);
  expect(await repos.githubLinks.findOrgs([{ kind: 'account', key }, { kind: 'installation', key }])).toEqual([]);
  expect(await repos.githubLinks.listByOrg(key)).toEqual([]);

  expect(await repos.sandboxes.get(key)).toBeNull();
  expect(await repos.sandboxes.listByUser(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  expect(await repos.sandboxes.update(makeSandboxRecord({ id: key }))).toBe(false);
  expect(await repos.sandboxes.delete(key)).toBe(false);

  expect(await repos.conversations.get(key)).toBeNull();
  expect(await repos.conversations.listByUser(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  expect(await repos.conversations.update(makeConversationRecord({ id: key }))).toBe(false);
  expect(await repos.conversations.listEvents(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: key });
  await expect(repos.conversations.appendEvents(key, [event])).rejects.toBeInstanceOf(StorageConflictError);

  expect(await repos.startTasks.get(key)).toBeNull();
  expect(await repos.startTasks.listByUser(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  expect(await repos.startTasks.update(makeStartTaskRecord({ id: key }))).toBe(false);
}

export function describeHostileValues(ctx: SuiteContext): void {
  describe('hostile values: lone surrogates, U+0000, deep nesting', () => {
    it('settings and provider tokens keep lone surrogates and U+0000 in every string, exactly', async () => {
      for (const text of HOSTILE_TEXTS) {
        const settings = makeSettingsRecord({
          values: {
            language: text,
            agent: text,
            security_analyzer: text,
            llm_model: text,
            llm_base_url: text,
            sandbox_base_container_image: text,
            sandbox_runtime_container_image: text,
            email: text,
            git_user_name: text,
            git_user_email: text,
          },
          secrets: { llm_api_key: text, search_api_key: text, sandbox_api_key: text },
          mcp_config: {
            sse_servers: [{ url: text, api_key: text }],
            stdio_servers: [{ name: text, command: text, args: [...HOSTILE_TEXTS], env: { [text]: text, FS_TOKEN: text } }],
            shttp_servers: [],
          },
        });
        await ctx.adapter.settings.put(settings);
        expect(await ctx.adapter.settings.get(settings.user_id)).toEqual(settings);

        const tokens = makeProviderTokensRecord({ tokens: { github: { token: text, host: text, user_id: text } } });
        await ctx.adapter.providerTokens.put(tokens);
        expect(await ctx.adapter.providerTokens.get(tokens.user_id)).toEqual(tokens);
      }
    });

    it('API keys keep them in name and prefix, through get, getByHash, listByUser and touch', async () => {
      const userId = uniqueId('user');
      const keys = HOSTILE_TEXTS.map((text, n) => makeApiKeyRecord({ user_id: userId, name: text, prefix: text, created_at: fixtureTime(n) }));
      for (const key of keys) await ctx.adapter.apiKeys.insert(key);
      for (const key of keys) {
        expect(await ctx.adapter.apiKeys.get(key.id)).toEqual(key);
        expect(await ctx.adapter.apiKeys.getByHash(key.key_hash)).toEqual(key);
      }
      expect(await ctx.adapter.apiKeys.listByUser(userId)).toEqual(keys);
      const [first] = keys;
      if (!first) throw new Error('no keys');
      await ctx.adapter.apiKeys.touch(first.id, fixtureTime(99));
      expect(await ctx.adapter.apiKeys.get(first.id)).toEqual({ ...first, last_used_at: fixtureTime(99) });
    });

    it('webhooks keep them in every field, the source included, and are found by that source', async () => {
      for (const text of HOSTILE_TEXTS) {
        const webhook = makeWebhookRecord({
          name: text,
          source: text,
          created_by: text,
          event_key_expr: text,
          event_key_header: text,
          signature_header: text,
          delivery_id_header: text,
          secret: text,
          previous_secret: text,
        });
        await ctx.adapter.webhooks.insert(webhook);
        expect(await ctx.adapter.webhooks.get(webhook.org_id, webhook.id)).toEqual(webhook);
        expect(await ctx.adapter.webhooks.getBySource(webhook.org_id, text)).toEqual(webhook);
        expect(await ctx.adapter.webhooks.list(webhook.org_id, { limit: 10, offset: 0 })).toEqual({ items: [webhook], total: 1 });
        // Exactly that source: not with a character more or less.
        expect(await ctx.adapter.webhooks.getBySource(webhook.org_id, `${text}\u0000`)).toBeNull();
        expect(await ctx.adapter.webhooks.getBySource(webhook.org_id, text.slice(1))).toBeNull();
        const renamed = { ...webhook, name: `${text}${text}`, source: `${text}\ud800` };
        expect(await ctx.adapter.webhooks.update(renamed)).toBe(true);
        expect(await ctx.adapter.webhooks.getBySource(webhook.org_id, `${text}\ud800`)).toEqual(renamed);
        expect(await ctx.adapter.webhooks.getBySource(webhook.org_id, text)).toBeNull();
      }
    });

    it('automations keep them in name, instructions, filter, events and trigger source, and are matched by that source', async () => {
      for (const text of HOSTILE_TEXTS) {
        const automation = makeAutomationRecord({
          name: text,
          instructions: text,
          created_by: text,
          selected_repository: text,
          llm_model: text,
          sandbox_spec_id: text,
          trigger: { source: text, filter: text, on: [text, 'push'] },
        });
        await ctx.adapter.automations.insert(automation);
        expect(await ctx.adapter.automations.get(automation.org_id, automation.id)).toEqual(automation);
        expect(await ctx.adapter.automations.list(automation.org_id, { limit: 10, offset: 0 })).toEqual({ items: [automation], total: 1 });
        expect(await ctx.adapter.automations.listEnabledBySource(automation.org_id, text)).toEqual([automation]);
        expect(await ctx.adapter.automations.listEnabledBySource(automation.org_id, `${text}\u0000`)).toEqual([]);
        await ctx.adapter.automations.markTriggered(automation.org_id, [automation.id], fixtureTime(5));
        expect(await ctx.adapter.automations.get(automation.org_id, automation.id)).toEqual({ ...automation, last_triggered_at: fixtureTime(5) });
      }
    });

    it('runs keep them in error_detail, event_key and payload, written by insertMany and by transition', async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const runs = HOSTILE_TEXTS.map((text, n) =>
        makeRunRecord({
          org_id: orgId,
          automation_id: automationId,
          error_detail: text,
          event_key: text,
          dispatch_payload_json: text,
          created_by: text,
          created_at: fixtureTime(n),
        }),
      );
      await ctx.adapter.runs.insertMany(runs);
      for (const run of runs) expect(await ctx.adapter.runs.get(orgId, run.id)).toEqual(run);
      expect(await ctx.adapter.runs.listByAutomation(orgId, automationId, { limit: 100, offset: 0 })).toEqual({
        items: [...runs].reverse(),
        total: runs.length,
      });
      for (const [n, run] of runs.entries()) {
        const text = HOSTILE_TEXTS[(n + 1) % HOSTILE_TEXTS.length] as string;
        const patch = { status: 'RUNNING' as const, error_detail: text, lease_owner: text, lease_expires_at: fixtureTime(60) };
        const written = await ctx.adapter.runs.transition(orgId, run.id, { from: ['PENDING'], leaseOwner: null }, patch);
        expect(written).toEqual({ ...run, ...patch });
        expect(await ctx.adapter.runs.get(orgId, run.id)).toEqual({ ...run, ...patch });
        // The lease owner is compared exactly.
        expect(await ctx.adapter.runs.transition(orgId, run.id, { from: ['RUNNING'], leaseOwner: `${text}\u0000` }, { error_detail: 'x' })).toBeNull();
        expect(await ctx.adapter.runs.transition(orgId, run.id, { from: ['RUNNING'], leaseOwner: text }, { error_detail: `${text}!` })).toEqual({
          ...run,
          ...patch,
          error_detail: `${text}!`,
        });
      }
    });

    it('deliveries keep them in payload, detail, event key, provider delivery id, dedup key, outcomes and source', async () => {
      for (const text of HOSTILE_TEXTS) {
        const [outcome] = makeDeliveryRecord().outcomes;
        if (!outcome) throw new Error('no outcome');
        const delivery = makeDeliveryRecord({
          source: text,
          payload_json: text,
          detail: text,
          event_key: text,
          provider_delivery_id: text,
          dedup_key: text,
          replay_of: text,
          outcomes: [{ ...outcome, automation_name: text, error: text }],
          runs_created: [text],
        });
        const other = makeDeliveryRecord({ org_id: delivery.org_id, source: `${text}\u0000`, received_at: fixtureTime(-1) });
        await ctx.adapter.deliveries.insert(delivery);
        await ctx.adapter.deliveries.insert(other);
        expect(await ctx.adapter.deliveries.get(delivery.org_id, delivery.id)).toEqual(delivery);
        expect(await ctx.adapter.deliveries.list(delivery.org_id, { limit: 10, offset: 0 })).toEqual({ items: [delivery, other], total: 2 });
        expect(await ctx.adapter.deliveries.list(delivery.org_id, { limit: 10, offset: 0, source: text })).toEqual({ items: [delivery], total: 1 });
        expect(await ctx.adapter.deliveries.list(delivery.org_id, { limit: 10, offset: 0, source: `${text}\u0000` })).toEqual({
          items: [other],
          total: 1,
        });
        expect(await ctx.adapter.deliveries.list(delivery.org_id, { limit: 10, offset: 0, source: text, status: 'matched' })).toEqual({
          items: [delivery],
          total: 1,
        });
      }
    });

    it('dedup claims tell keys with lone surrogates and U+0000 apart, and name the holder exactly', async () => {
      const orgId = uniqueId('org');
      for (const text of HOSTILE_TEXTS) {
        const claim = { orgId, source: text, key: text, deliveryId: `${uniqueId('dlv')}${text}`, expiresAt: fixtureTime(3600), now: fixtureTime(0) };
        expect(await ctx.adapter.deliveries.claimDedupKey(claim)).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey({ ...claim, deliveryId: uniqueId('dlv') })).toBe(claim.deliveryId);
        for (const suffix of KEY_SUFFIXES) {
          const other = { ...claim, key: `${text}${suffix}`, deliveryId: uniqueId('dlv') };
          expect(await ctx.adapter.deliveries.claimDedupKey(other)).toBeNull();
          expect(await ctx.adapter.deliveries.claimDedupKey({ ...other, deliveryId: uniqueId('dlv') })).toBe(other.deliveryId);
        }
      }
    });

    it('conversations and their events keep them, through get, appendEvents, listEvents and cursor pages', async () => {
      const userId = uniqueId('user');
      const conversations = HOSTILE_TEXTS.map((text, n) =>
        makeConversationRecord({
          created_by_user_id: userId,
          title: text,
          selected_repository: text,
          selected_branch: text,
          llm_model: text,
          created_at: fixtureTime(n),
        }),
      );
      for (const conversation of conversations) await ctx.adapter.conversations.insert(conversation);
      const pages = await collectPages((options) => ctx.adapter.conversations.listByUser(userId, options), 4);
      expect(pages.flatMap((page) => page.items)).toEqual([...conversations].reverse());

      const [conversation] = conversations;
      if (!conversation) throw new Error('no conversation');
      expect(await ctx.adapter.conversations.get(conversation.id)).toEqual(conversation);
      const updated = { ...conversation, title: `${conversation.title}\u0000\udc00` };
      expect(await ctx.adapter.conversations.update(updated)).toBe(true);
      expect(await ctx.adapter.conversations.get(conversation.id)).toEqual(updated);

      const events = HOSTILE_TEXTS.map((text) => {
        const { seq: _seq, ...event } = makeConversationEvent({
          conversation_id: conversation.id,
          message: text,
          data: { [text]: [text, { text }], nested: { list: [...HOSTILE_TEXTS] } },
        });
        return event;
      });
      const stored = await ctx.adapter.conversations.appendEvents(conversation.id, events);
      expect(stored).toEqual(events.map((event, seq) => ({ ...event, seq })));
      const eventPages = await collectPages((options) => ctx.adapter.conversations.listEvents(conversation.id, options), 4);
      expect(eventPages.flatMap((page) => page.items)).toEqual(stored);
    });

    it('start tasks and sandboxes keep them, through get, update and cursor pages', async () => {
      const userId = uniqueId('user');
      const tasks = HOSTILE_TEXTS.map((text, n) =>
        makeStartTaskRecord({
          created_by_user_id: userId,
          detail: text,
          request: { [text]: text, selected_repository: text, initial_message: { content: [{ type: 'text', text }] } },
          created_at: fixtureTime(n),
        }),
      );
      for (const task of tasks) await ctx.adapter.startTasks.insert(task);
      for (const task of tasks) expect(await ctx.adapter.startTasks.get(task.id)).toEqual(task);
      const pages = await collectPages((options) => ctx.adapter.startTasks.listByUser(userId, options), 4);
      expect(pages.flatMap((page) => page.items)).toEqual([...tasks].reverse());
      const [task] = tasks;
      if (!task) throw new Error('no task');
      const ready = { ...task, status: 'READY' as const, detail: '\udc00\u0000', app_conversation_id: '\ud800' };
      expect(await ctx.adapter.startTasks.update(ready)).toBe(true);
      expect(await ctx.adapter.startTasks.get(task.id)).toEqual(ready);

      const sandboxUser = uniqueId('user');
      const sandboxes = HOSTILE_TEXTS.map((text, n) =>
        makeSandboxRecord({
          created_by_user_id: sandboxUser,
          sandbox_spec_id: text,
          session_api_key: text,
          exposed_urls: [{ name: text, url: text, port: 8000 }],
          created_at: fixtureTime(n),
        }),
      );
      for (const sandbox of sandboxes) await ctx.adapter.sandboxes.insert(sandbox);
      for (const sandbox of sandboxes) expect(await ctx.adapter.sandboxes.get(sandbox.id)).toEqual(sandbox);
      const sandboxPages = await collectPages((options) => ctx.adapter.sandboxes.listByUser(sandboxUser, options), 4);
      expect(sandboxPages.flatMap((page) => page.items)).toEqual([...sandboxes].reverse());
    });

    it('a record stored under keys with lone surrogates or U+0000 is found by exactly those keys, and by no look-alike', async () => {
      for (const text of HOSTILE_TEXTS) {
        const userId = `${uniqueId('user')}${text}`;
        const settings = makeSettingsRecord({ user_id: userId });
        // A key the escaping of another could collide with: U+0000 against U+FFFF "0", and so on.
        const lookalike = makeSettingsRecord({ user_id: `${userId}\uffff0` });
        const nul = makeSettingsRecord({ user_id: `${userId}\u0000` });
        for (const record of [settings, lookalike, nul]) await ctx.adapter.settings.put(record);
        for (const record of [settings, lookalike, nul]) expect(await ctx.adapter.settings.get(record.user_id)).toEqual(record);
        expect(await ctx.adapter.settings.get(`${userId}\uffff`)).toBeNull();

        const tokens = makeProviderTokensRecord({ user_id: userId });
        await ctx.adapter.providerTokens.put(tokens);
        expect(await ctx.adapter.providerTokens.get(userId)).toEqual(tokens);
        await ctx.adapter.providerTokens.delete(userId);
        expect(await ctx.adapter.providerTokens.get(userId)).toBeNull();

        const orgId = `${uniqueId('org')}${text}`;
        const webhook = makeWebhookRecord({ id: `${uniqueId('wh')}${text}`, org_id: orgId, source: text });
        await ctx.adapter.webhooks.insert(webhook);
        await expect(ctx.adapter.webhooks.insert(makeWebhookRecord({ org_id: orgId, source: text }))).rejects.toBeInstanceOf(StorageConflictError);
        expect(await ctx.adapter.webhooks.getBySource(orgId, text)).toEqual(webhook);
        expect(await ctx.adapter.webhooks.get(orgId, webhook.id)).toEqual(webhook);
        expect(await ctx.adapter.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [webhook], total: 1 });
        expect(await ctx.adapter.webhooks.delete(orgId, webhook.id)).toBe(true);
        expect(await ctx.adapter.webhooks.getBySource(orgId, text)).toBeNull();

        const automation = makeAutomationRecord({ id: `${uniqueId('auto')}${text}`, org_id: orgId, trigger: { source: text } });
        await ctx.adapter.automations.insert(automation);
        expect(await ctx.adapter.automations.listEnabledBySource(orgId, text)).toEqual([automation]);
        await ctx.adapter.automations.markTriggered(orgId, [automation.id], fixtureTime(7));
        expect(await ctx.adapter.automations.get(orgId, automation.id)).toEqual({ ...automation, last_triggered_at: fixtureTime(7) });
        expect(await ctx.adapter.automations.delete(orgId, automation.id)).toBe(true);

        const key = makeApiKeyRecord({ id: `${uniqueId('key')}${text}`, user_id: userId, key_hash: `${uniqueId('hash')}${text}` });
        await ctx.adapter.apiKeys.insert(key);
        expect(await ctx.adapter.apiKeys.get(key.id)).toEqual(key);
        expect(await ctx.adapter.apiKeys.getByHash(key.key_hash)).toEqual(key);
        expect(await ctx.adapter.apiKeys.listByUser(userId)).toEqual([key]);
        expect(await ctx.adapter.apiKeys.delete(key.id)).toBe(true);

        const delivery = makeDeliveryRecord({ id: `${uniqueId('dlv')}${text}`, org_id: orgId, source: text });
        await ctx.adapter.deliveries.insert(delivery);
        expect(await ctx.adapter.deliveries.get(orgId, delivery.id)).toEqual(delivery);
        expect(await ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0, source: text })).toEqual({ items: [delivery], total: 1 });

        const link = makeGithubLinkRecord({ key: `login-${uniqueId('gh')}${text}`, org_id: orgId });
        await ctx.adapter.githubLinks.put(link);
        expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: link.key }])).toEqual([orgId]);
        expect(await ctx.adapter.githubLinks.listByOrg(orgId)).toEqual([link]);
        expect(await ctx.adapter.githubLinks.delete('account', link.key, orgId)).toBe(true);
        expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: link.key }])).toEqual([]);

        const sandboxes = [1, 2, 3].map((n) =>
          makeSandboxRecord({ id: `${uniqueId('sbx')}${text}`, created_by_user_id: userId, created_at: fixtureTime(n % 2) }),
        );
        for (const sandbox of sandboxes) await ctx.adapter.sandboxes.insert(sandbox);
        const pages = await collectPages((options) => ctx.adapter.sandboxes.listByUser(userId, options), 1);
        expect(pages.flatMap((page) => page.items).map((sandbox) => sandbox.id).sort()).toEqual(sandboxes.map((sandbox) => sandbox.id).sort());
        for (const sandbox of sandboxes) expect(await ctx.adapter.sandboxes.delete(sandbox.id)).toBe(true);

        const conversation = makeConversationRecord({ id: `${uniqueId('conv')}${text}`, created_by_user_id: userId });
        await ctx.adapter.conversations.insert(conversation);
        const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: conversation.id });
        expect(await ctx.adapter.conversations.appendEvents(conversation.id, [event])).toEqual([{ ...event, seq: 0 }]);
        expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({ items: [{ ...event, seq: 0 }], nextPageId: null });
        expect(await ctx.adapter.conversations.listByUser(userId, { limit: 10 })).toEqual({ items: [conversation], nextPageId: null });

        const task = makeStartTaskRecord({ id: `${uniqueId('task')}${text}`, created_by_user_id: userId });
        await ctx.adapter.startTasks.insert(task);
        expect(await ctx.adapter.startTasks.get(task.id)).toEqual(task);
        expect(await ctx.adapter.startTasks.listByUser(userId, { limit: 10 })).toEqual({ items: [task], nextPageId: null });
      }
    });

    it('runs under such keys are transitioned, renewed, completed and released by them', async () => {
      for (const text of HOSTILE_TEXTS) {
        const orgId = `${uniqueId('org')}${text}`;
        const owner = `${uniqueId('owner')}${text}`;
        const held = (overrides = {}) =>
          makeRunRecord({
            id: `${uniqueId('run')}${text}`,
            org_id: orgId,
            automation_id: `${uniqueId('auto')}${text}`,
            status: 'RUNNING',
            attempt: 1,
            started_at: fixtureTime(0),
            lease_owner: owner,
            lease_expires_at: fixtureTime(60),
            ...overrides,
          });
        const completed = held();
        const released = held();
        const other = held({ lease_owner: `${owner}\u0000` });
        await ctx.adapter.runs.insertMany([completed, released, other]);
        expect(await ctx.adapter.runs.listByAutomation(orgId, completed.automation_id, { limit: 10, offset: 0 })).toEqual({ items: [completed], total: 1 });

        const refs = [completed, released, other].map((run) => ({ orgId, id: run.id }));
        const renewed = await ctx.adapter.runQueue.renew(owner, [...refs, { orgId: `${orgId}\u0000`, id: completed.id }], fixtureTime(120));
        expect(renewed.map((ref) => ref.id).sort()).toEqual([completed.id, released.id].sort());
        expect(renewed.every((ref) => ref.orgId === orgId)).toBe(true);
        expect(await ctx.adapter.runs.get(orgId, completed.id)).toEqual({ ...completed, lease_expires_at: fixtureTime(120) });

        const completion = { status: 'COMPLETED' as const, error_detail: text, completed_at: fixtureTime(130) };
        expect(await ctx.adapter.runQueue.complete(`${owner}\ud800`, { orgId, id: completed.id }, completion)).toBeNull();
        expect(await ctx.adapter.runQueue.complete(owner, { orgId, id: completed.id }, completion)).toEqual({
          ...completed,
          ...completion,
          lease_owner: null,
          lease_expires_at: null,
        });
        const release = { error_detail: text, not_before: null, attempt: 1 };
        expect(await ctx.adapter.runQueue.release(owner, { orgId, id: `${released.id}\u0000` }, release)).toBeNull();
        expect(await ctx.adapter.runQueue.release(owner, { orgId, id: released.id }, release)).toEqual({
          ...released,
          ...release,
          status: 'PENDING',
          lease_owner: null,
          lease_expires_at: null,
        });
        expect(await ctx.adapter.runs.transition(orgId, other.id, { from: ['RUNNING'] }, { status: 'CANCELLED', error_detail: text })).toEqual({
          ...other,
          status: 'CANCELLED',
          error_detail: text,
        });
      }
    });

    it('lookups, updates and deletes by keys with U+0000 or a lone surrogate find nothing and never throw', async () => {
      const orgId = uniqueId('org');
      // Something under the org, so a lookup that ignored the odd key would find it.
      const webhook = makeWebhookRecord({ org_id: orgId, source: 'github' });
      await ctx.adapter.webhooks.insert(webhook);
      for (const key of unknownKeys('key')) await expectNothingFound(ctx.adapter, key, orgId);
      expect(await ctx.adapter.runQueue.renew(`owner\u0000`, [{ orgId: `${orgId}\ud800`, id: `run\u0000` }], fixtureTime(1))).toEqual([]);
      const completion = { status: 'COMPLETED' as const, error_detail: null, completed_at: fixtureTime(1) };
      expect(await ctx.adapter.runQueue.complete('\udc00', { orgId: '\u0000', id: '\ud800' }, completion)).toBeNull();
      expect(await ctx.adapter.runQueue.release('\u0000', { orgId, id: 'run\udc00' }, { error_detail: null, not_before: null, attempt: 0 })).toBeNull();
      expect(await ctx.adapter.webhooks.getBySource(orgId, 'github')).toEqual(webhook);
    });

    it('and inside a transaction, which goes on and commits', async () => {
      const orgId = uniqueId('org');
      const settings = makeSettingsRecord();
      await ctx.adapter.transaction(async (tx) => {
        for (const key of unknownKeys('key').slice(0, 4)) await expectNothingFound(tx, key, orgId);
        await tx.settings.put(settings);
      });
      expect(await ctx.adapter.settings.get(settings.user_id)).toEqual(settings);
    });

    it('stores and reads back a payload_json nested 10,000 levels deep', async () => {
      const payload = nestedJsonText(10_000);
      const delivery = makeDeliveryRecord({ payload_json: payload });
      await ctx.adapter.deliveries.insert(delivery);
      const stored = await ctx.adapter.deliveries.get(delivery.org_id, delivery.id);
      expect(stored?.payload_json === payload).toBe(true);
      expect(stored).toEqual({ ...delivery, payload_json: stored?.payload_json });
      const listed = await ctx.adapter.deliveries.list(delivery.org_id, { limit: 10, offset: 0 });
      expect(listed.items[0]?.payload_json === payload).toBe(true);
    });

    it('stores and reads back record fields nested 256 and 10,000 levels deep', async () => {
      for (const depth of [256, 10_000]) {
        const userId = uniqueId('user');
        const leaf = { text: 'leaf \u0000 \ud800 \uffff0', list: [1, null, true] };
        const task = makeStartTaskRecord({ created_by_user_id: userId, request: { deep: nestedValue(depth, leaf), after: 'x\udc00' } });
        await ctx.adapter.startTasks.insert(task);
        expect(sameJson(await ctx.adapter.startTasks.get(task.id), task)).toBe(true);
        const page = await ctx.adapter.startTasks.listByUser(userId, { limit: 10 });
        expect(page.items).toHaveLength(1);
        expect(sameJson(page.items[0], task)).toBe(true);
        const updated = { ...task, status: 'READY' as const, request: { deeper: nestedValue(depth + 1, leaf) } };
        expect(await ctx.adapter.startTasks.update(updated)).toBe(true);
        expect(sameJson(await ctx.adapter.startTasks.get(task.id), updated)).toBe(true);

        const [outcome] = makeDeliveryRecord().outcomes;
        if (!outcome) throw new Error('no outcome');
        // Outcomes are typed; deep values reach them only through a loose caller, yet must still read back.
        const delivery = makeDeliveryRecord({ outcomes: [{ ...outcome, error: nestedValue(depth, leaf) as unknown as string }] });
        await ctx.adapter.deliveries.insert(delivery);
        expect(sameJson(await ctx.adapter.deliveries.get(delivery.org_id, delivery.id), delivery)).toBe(true);

        const conversation = makeConversationRecord();
        await ctx.adapter.conversations.insert(conversation);
        const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: conversation.id, data: { deep: nestedValue(depth, leaf) } });
        const [appended] = await ctx.adapter.conversations.appendEvents(conversation.id, [event]);
        expect(sameJson(appended, { ...event, seq: 0 })).toBe(true);
        const events = await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 });
        expect(events.items).toHaveLength(1);
        expect(sameJson(events.items[0], { ...event, seq: 0 })).toBe(true);
      }
    });
  });
}
