/**
 * Conformance: every record kind keeps hostile strings exactly — in each free-text field and in
 * the user-chosen keys it is found by — through its writes, reads, lists and pages.
 * @module
 */
import { expect, it } from 'vitest';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationEvent,
  makeConversationRecord,
  makeDeliveryRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeWebhookRecord,
  uniqueId,
} from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOSTILE_TEXTS, KEY_SUFFIXES } from './hostile-inputs.js';
import { collectPages } from './paging.js';

/** Each repository in turn, written and read back with every hostile string. */
export function describeHostileRecords(ctx: SuiteContext): void {
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
    const title = `${conversation.title}\u0000\udc00`;
    const updated = { ...conversation, title, version: conversation.version + 1 };
    expect(await ctx.adapter.conversations.patch(conversation.id, { title }, { version: conversation.version })).toEqual(updated);
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
}
