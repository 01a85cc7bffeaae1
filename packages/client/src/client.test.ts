/**
 * Every namespace of the client against the real HTTP handler in process (the client's `fetch`
 * is `createFetchHandler`). Answers are also parsed with the server's own schemas, so a client
 * type that drifted from what the server sends would fail here as well as in the type tests.
 */
import {
  apiKeyListSchema,
  appConversationSchema,
  automationHealthSchema,
  automationListSchema,
  automationSchema,
  conversationEventSchema,
  createdApiKeySchema,
  createdWebhookSchema,
  currentApiKeySchema,
  customSecretPageSchema,
  deliveryListSchema,
  deliverySchema,
  ingestResultSchema,
  pageSchema,
  rotatedWebhookSchema,
  orgRunPageSchema,
  runListSchema,
  runSchema,
  sandboxSchema,
  sandboxSpecSchema,
  settingsViewSchema,
  SIGNATURE_SCHEMES,
  startTaskSchema,
  webhookListSchema,
  webhookViewSchema,
} from '@agent-platform/core/schemas';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPlatformError, AgentPlatformWaitError, collect, isAgentPlatformError, isAgentPlatformWaitError, type AgentPlatformClient } from './index.js';
import { GITHUB_SECRET, KEYS, startInProcess, type InProcessService } from '../test-support/in-process.js';

let service: InProcessService;
let alice: AgentPlatformClient;
let mallory: AgentPlatformClient;

beforeAll(async () => {
  service = await startInProcess();
  alice = service.client('alice');
  mallory = service.client('mallory');
});
afterAll(() => service.close());

/** The error a call rejects with (fails the test if it resolves). */
async function failure(promise: Promise<unknown>): Promise<AgentPlatformError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
  if (!isAgentPlatformError(error)) throw error;
  return error;
}

const trigger = (source: string, on: string | string[] = 'Issue', filter?: string) => ({ type: 'event' as const, source, on, ...(filter ? { filter } : {}) });

describe('settings and git providers', () => {
  it('stores settings, reads them back with secrets masked, and never returns a secret', async () => {
    const fresh = service.client('bob');
    expect((await failure(fresh.settings.get())).code).toBe('NOT_FOUND');
    expect(await fresh.settings.store({ llm_model: 'anthropic/claude', llm_api_key: 'sk-client-secret', max_iterations: 40 })).toEqual({
      message: 'Settings stored',
    });
    const settings = settingsViewSchema.parse(await fresh.settings.get());
    expect(settings).toMatchObject({ llm_model: 'anthropic/claude', llm_api_key: null, llm_api_key_set: true, max_iterations: 40 });
    expect(JSON.stringify(settings)).not.toContain('sk-client-secret');
  });

  it('sends the session key on settings calls and the bearer key elsewhere, as the API pairs them', async () => {
    const both = service.client(null, { apiKey: KEYS.alice, sessionApiKey: KEYS.bob });
    const before = service.requests.length;
    await both.settings.store({ language: 'fr' });
    await both.webhooks.list();
    const [settingsCall, webhooksCall] = service.requests.slice(before);
    expect(settingsCall?.headers.get('x-session-api-key')).toBe(KEYS.bob);
    expect(settingsCall?.headers.get('authorization')).toBeNull();
    expect(webhooksCall?.headers.get('authorization')).toBe(`Bearer ${KEYS.alice}`);
    expect(webhooksCall?.headers.get('x-session-api-key')).toBeNull();
    // A session key alone works everywhere (the server takes either header on every route).
    const sessionOnly = service.client(null, { sessionApiKey: KEYS.alice });
    expect((await sessionOnly.webhooks.list()).total).toBeGreaterThanOrEqual(0);
  });

  it('stores and unsets provider tokens; an unknown provider is a 422 with its loc', async () => {
    expect(
      await alice.gitProviders.store({ provider_tokens: { github: { token: 'ghp_client_token' }, gitlab: { token: 'glpat', host: 'gitlab.acme.dev' } } }),
    ).toEqual({
      message: 'Git providers stored',
    });
    await alice.settings.store({ language: 'en' });
    expect((await alice.settings.get()).provider_tokens_set).toEqual({ github: null, gitlab: 'gitlab.acme.dev' });
    await alice.gitProviders.unset({ providers: ['gitlab'] });
    expect((await alice.settings.get()).provider_tokens_set).toEqual({ github: null });
    await alice.gitProviders.unset();
    expect((await alice.settings.get()).provider_tokens_set).toEqual({});
    const bad = await failure(alice.gitProviders.store({ provider_tokens: { nope: { token: 'x' } } as never }));
    expect(bad.status).toBe(422);
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.issues.map((issue) => issue.loc)).toContainEqual(['body', 'provider_tokens', 'nope']);
  });
});

describe('API keys', () => {
  it('creates (the key shown once), lists without keys, and revokes: the key then answers 401', async () => {
    const created = createdApiKeySchema.parse(await alice.apiKeys.create({ name: 'ci' }));
    const listed = apiKeyListSchema.parse(await alice.apiKeys.list());
    expect(listed.keys.map((key) => key.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const withNewKey = service.client(null, { apiKey: created.key });
    expect((await withNewKey.apiKeys.list()).keys.length).toBeGreaterThan(0);
    await expect(alice.apiKeys.revoke(created.id)).resolves.toBeUndefined();
    const refused = await failure(withNewKey.apiKeys.list());
    expect([refused.status, refused.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(refused.message).toContain('401');
    expect(refused.message).not.toContain(created.key);
    expect((await failure(alice.apiKeys.revoke(created.id))).status).toBe(404);
  });

  it('current(): the key this client authenticates with, never the key itself; 401 without one', async () => {
    const created = await alice.apiKeys.create({ name: 'current-check' });
    const current = currentApiKeySchema.parse(await service.client(null, { apiKey: created.key }).apiKeys.current());
    expect(current).toMatchObject({ id: created.id, name: 'current-check', user_id: 'alice', auth_type: 'api_key' });
    expect(JSON.stringify(current)).not.toContain(created.key);
    // As the session key too: the server takes either header.
    expect((await service.client(null, { sessionApiKey: created.key }).apiKeys.current()).id).toBe(created.id);
    expect((await mallory.apiKeys.current()).user_id).toBe('mallory');
    expect((await failure(service.client(null).apiKeys.current())).status).toBe(401);
    await alice.apiKeys.revoke(created.id);
  });

  it('without credentials: 401 with the server’s detail', async () => {
    const anonymous = service.client(null);
    const error = await failure(anonymous.webhooks.list());
    expect(error).toBeInstanceOf(AgentPlatformError);
    expect(error.detail).toMatch(/Missing API key/);
  });
});

describe('secrets', () => {
  it('creates, lists by name (never a value), pages, renames, re-describes and deletes', async () => {
    const bob = service.client('bob');
    expect(await bob.secrets.list()).toEqual({ items: [], next_page_id: null });
    expect(await bob.secrets.create({ name: 'GITHUB_TOKEN', value: 'ghp_client_secret_value', description: 'CI token' })).toEqual({
      message: 'Secret created successfully',
    });
    for (const name of ['B_SECRET', 'A_SECRET', 'C_SECRET']) await bob.secrets.create({ name, value: `value-of-${name}` });
    const page = customSecretPageSchema.parse(await bob.secrets.list({ limit: 2 }));
    expect(page.items).toEqual([
      { name: 'A_SECRET', description: null },
      { name: 'B_SECRET', description: null },
    ]);
    expect(page.next_page_id).toEqual(expect.any(String));
    expect((await bob.secrets.list({ limit: 2, page_id: page.next_page_id as string })).items.map((item) => item.name)).toEqual(['C_SECRET', 'GITHUB_TOKEN']);
    expect((await bob.secrets.list({ name__contains: 'github' })).items).toEqual([{ name: 'GITHUB_TOKEN', description: 'CI token' }]);
    const all = await collect(bob.secrets.iterate({ pageSize: 1 }));
    expect(all.map((item) => item.name)).toEqual(['A_SECRET', 'B_SECRET', 'C_SECRET', 'GITHUB_TOKEN']);
    const sent = service.requests.slice(-5).map((request) => new URL(request.url).pathname);
    expect(sent.every((path) => path === '/api/v1/secrets/search')).toBe(true);
    expect(JSON.stringify(all)).not.toContain('value-of');

    // The name defaults to the current one; the description is replaced (omitted clears it).
    expect(await bob.secrets.update('A_SECRET', { description: 'first' })).toEqual({ message: 'Secret updated successfully' });
    expect(await service.requests.at(-1)!.clone().json()).toEqual({ name: 'A_SECRET', description: 'first' });
    await bob.secrets.update('A_SECRET', { name: 'RENAMED_SECRET' });
    expect((await bob.secrets.list({ name__contains: 'secret' })).items).toEqual([
      { name: 'B_SECRET', description: null },
      { name: 'C_SECRET', description: null },
      { name: 'RENAMED_SECRET', description: null },
    ]);
    // The value went with the rename (what the agent's commands are given).
    expect((await service.platform.settings.agentSettings('bob')).customSecrets).toMatchObject({ RENAMED_SECRET: 'value-of-A_SECRET' });

    expect((await failure(bob.secrets.create({ name: 'B_SECRET', value: 'again' }))).code).toBe('CONFLICT');
    expect((await failure(bob.secrets.update('C_SECRET', { name: 'B_SECRET' }))).code).toBe('CONFLICT');
    expect((await failure(bob.secrets.update('NO_SUCH', { description: 'x' }))).status).toBe(404);
    const bad = await failure(bob.secrets.create({ name: '1NOT_AN_ENV_NAME', value: 'x' }));
    expect(bad.issues.map((issue) => issue.loc)).toContainEqual(['body', 'name']);
    // Another user sees none of them.
    expect((await mallory.secrets.list()).items).toEqual([]);
    expect((await failure(mallory.secrets.delete('B_SECRET'))).status).toBe(404);

    expect(await bob.secrets.delete('B_SECRET')).toEqual({ message: 'Secret deleted successfully' });
    expect((await failure(bob.secrets.delete('B_SECRET'))).status).toBe(404);
    expect((await collect(bob.secrets.iterate())).map((item) => item.name)).toEqual(['C_SECRET', 'GITHUB_TOKEN', 'RENAMED_SECRET']);
  });
});

describe('webhooks', () => {
  it('registers (the generated secret once), gets, updates, rotates and deletes', async () => {
    const created = createdWebhookSchema.parse(await alice.webhooks.register({ name: 'Tracker', source: 'tracker-a' }));
    expect(created.webhook_secret).toMatch(/^whsec_/);
    expect(created.webhook_url).toBe('https://agents.example.com/api/automation/v1/events/acme/tracker-a');
    const got = webhookViewSchema.parse(await alice.webhooks.get(created.id));
    expect(got).not.toHaveProperty('webhook_secret');
    expect((await alice.webhooks.update(created.id, { name: 'Renamed', enabled: false })).name).toBe('Renamed');
    const rotated = rotatedWebhookSchema.parse(await alice.webhooks.rotateSecret(created.id, { grace_period_seconds: 0 }));
    expect(rotated.webhook_secret).not.toBe(created.webhook_secret);
    expect((await failure(alice.webhooks.register({ name: 'Again', source: 'tracker-a' }))).code).toBe('CONFLICT');
    await alice.webhooks.delete(created.id);
    expect((await failure(alice.webhooks.get(created.id))).code).toBe('NOT_FOUND');
  });

  it('keeps another org’s webhook behind 404', async () => {
    const created = await alice.webhooks.register({ name: 'Private', source: 'private-src' });
    expect((await failure(mallory.webhooks.get(created.id))).status).toBe(404);
    expect((await failure(mallory.webhooks.delete(created.id))).status).toBe(404);
  });

  it('422s come back as a list of issues, as sent', async () => {
    const error = await failure(alice.webhooks.register({ name: 'Bad', source: 'Bad Source', event_key_expr: 'nope(' }));
    expect(error.status).toBe(422);
    expect(Array.isArray(error.detail)).toBe(true);
    expect(error.issues.map((issue) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'source'],
        ['body', 'event_key_expr'],
      ]),
    );
    expect(error.message).toMatch(/body\.source/);
  });

  it('iterates every webhook in pages of any size, and lists pages with total', async () => {
    for (let i = 0; i < 7; i++) await alice.webhooks.register({ name: `Paged ${i}`, source: `paged-${i}` });
    const page = webhookListSchema.parse(await alice.webhooks.list({ limit: 3, offset: 0 }));
    expect(page.webhooks).toHaveLength(3);
    const all = await collect(alice.webhooks.iterate({ pageSize: 2 }));
    expect(all).toHaveLength(page.total);
    expect(new Set(all.map((webhook) => webhook.id)).size).toBe(page.total);
  });
});

describe('automations, runs, deliveries and events', () => {
  let secret: string;
  beforeAll(async () => {
    const webhook = await alice.webhooks.register({ name: 'Linear', source: 'linear' });
    secret = webhook.webhook_secret as string;
  });

  it('creates, gets, updates, lists, iterates and deletes automations', async () => {
    const created = automationSchema.parse(
      await alice.automations.create({ name: 'triage', trigger: trigger('linear', 'Issue', "action == 'create'"), instructions: 'Triage it' }),
    );
    expect(created).toMatchObject({ enabled: true, trigger: { filter: "action == 'create'" }, created_by: 'alice' });
    expect(await alice.automations.get(created.id)).toEqual(created);
    const updated = await alice.automations.update(created.id, { trigger: { filter: null }, enabled: false });
    expect(updated.trigger.filter).toBeNull();
    for (let i = 0; i < 5; i++) await alice.automations.create({ name: `more ${i}`, trigger: trigger('linear', `Other${i}`), instructions: 'x' });
    const list = automationListSchema.parse(await alice.automations.list({ limit: 2 }));
    const all = await collect(alice.automations.iterate({ pageSize: 2 }));
    expect(all.map((automation) => automation.id)).toHaveLength(list.total);
    expect(all.map((automation) => automation.id)).toContain(created.id);
    await alice.automations.delete(created.id);
    expect((await failure(alice.automations.get(created.id))).status).toBe(404);
  });

  it('refuses a filter that does not compile, with the issue at its loc', async () => {
    const error = await failure(alice.automations.create({ name: 'bad', trigger: trigger('linear', 'Issue', "unknown_fn(title, 'x')"), instructions: 'x' }));
    expect(error.issues[0]?.loc).toEqual(['body', 'trigger', 'filter']);
  });

  it('sends a signed event that matches, follows the run to COMPLETED, and reads the delivery log', async () => {
    const automation = await alice.automations.create({
      name: 'on issue',
      trigger: trigger('linear', 'IssueCreated', "contains(data.title, 'crash')"),
      instructions: 'Look at it',
    });
    const result = ingestResultSchema.parse(
      await alice.events.send({ org_id: 'acme', source: 'linear', secret, payload: { type: 'IssueCreated', data: { title: 'crash on start' } } }),
    );
    expect(result).toMatchObject({ received: true, matched: 1, runs_created: [expect.any(String)] });
    const run = runSchema.parse(await alice.automations.waitForRun(result.runs_created[0] as string, { timeoutMs: 30_000 }));
    expect(run).toMatchObject({ status: 'COMPLETED', automation_id: automation.id, delivery_id: result.delivery_id, conversation_id: expect.any(String) });

    const runs = runListSchema.parse(await alice.automations.runs(automation.id));
    expect(runs.runs[0]).toEqual(run);
    expect(await collect(alice.automations.iterateRuns(automation.id, { pageSize: 1 }))).toEqual(runs.runs);
    expect(await alice.automations.getRun(run.id)).toEqual(run);
    // Across automations: the org's runs, filtered, and walked page by page.
    const completed = orgRunPageSchema.parse(await alice.automations.allRuns({ status: 'COMPLETED', automation_id: automation.id }));
    expect(completed.items).toEqual([run]);
    expect(await collect(alice.automations.iterateAllRuns({ automation_id: automation.id }, { pageSize: 1 }))).toEqual(runs.runs);

    const delivery = deliverySchema.parse(await alice.deliveries.get(result.delivery_id as string));
    expect(delivery).toMatchObject({ status: 'matched', event_key: 'IssueCreated', payload: { data: { title: 'crash on start' } } });
    expect(delivery.outcomes).toContainEqual(expect.objectContaining({ automation_id: automation.id, matched: true, run_id: run.id }));
    const log = deliveryListSchema.parse(await alice.deliveries.list({ source: 'linear', status: 'matched' }));
    expect(log.deliveries.map((entry) => entry.id)).toContain(delivery.id);
    const iterated = await collect(alice.deliveries.iterate({ source: 'linear', pageSize: 1 }));
    expect(iterated.map((entry) => entry.id)).toContain(delivery.id);

    const replay = await alice.deliveries.replay(delivery.id);
    expect(replay).toMatchObject({ received: true, matched: 1 });
    expect(replay.delivery_id).not.toBe(delivery.id);

    // The agent's output is in the run's conversation, oldest event first.
    const events = await collect(alice.conversations.iterateEvents(run.conversation_id as string, { pageSize: 2 }));
    for (const event of events) conversationEventSchema.parse(event);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
    expect(events.some((event) => event.message === 'task: Look at it' || event.message?.includes('Look at it'))).toBe(true);
  });

  it('a redelivery with the same delivery id answers duplicate; an unmatched event matches 0', async () => {
    await alice.automations.create({ name: 'dup', trigger: trigger('linear', 'Dup'), instructions: 'x' });
    const first = await alice.events.send({
      org_id: 'acme',
      source: 'linear',
      secret,
      payload: { type: 'Dup' },
      delivery_id: 'dlv-1',
      delivery_id_header: 'X-Delivery',
    });
    expect(first.matched).toBe(1);
    const second = await alice.events.send({
      org_id: 'acme',
      source: 'linear',
      secret,
      payload: { type: 'Dup' },
      delivery_id: 'dlv-1',
      delivery_id_header: 'X-Delivery',
    });
    expect(second).toEqual({ received: true, duplicate: true, matched: 0, runs_created: [] });
    expect((await alice.events.send({ org_id: 'acme', source: 'linear', secret, payload: { type: 'Nothing' } })).matched).toBe(0);
  });

  it('a wrong secret is a 401 and nothing is stored; an unknown source a 404; a body that is not JSON a 400', async () => {
    const before = (await alice.deliveries.list()).total;
    const wrong = await failure(alice.events.send({ org_id: 'acme', source: 'linear', secret: 'not-the-secret', payload: { type: 'Issue' } }));
    expect([wrong.status, wrong.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await alice.deliveries.list()).total).toBe(before);
    expect((await failure(alice.events.send({ org_id: 'acme', source: 'nowhere', secret, payload: {} }))).status).toBe(404);
    expect((await failure(alice.events.send({ org_id: 'acme', source: 'linear', secret, body: '{not json' }))).status).toBe(400);
  });

  it('signs with each scheme the way the server verifies it', async () => {
    // Every scheme a custom source may use; Linear signs its payload's own `webhookTimestamp`.
    for (const scheme of SIGNATURE_SCHEMES) {
      const source = `scheme-${scheme}`;
      const webhook = await alice.webhooks.register({ name: scheme, source, signature_scheme: scheme, signature_header: 'X-Custom-Sig' });
      await alice.automations.create({ name: scheme, trigger: trigger(source, 'ping'), instructions: 'x' });
      const result = await alice.events.send({
        org_id: 'acme',
        source,
        scheme,
        signature_header: webhook.signature_header,
        secret: webhook.webhook_secret as string,
        payload: { type: 'ping', text: 'héllo ✓', webhookTimestamp: Date.now() },
      });
      expect(result.matched, scheme).toBe(1);
      // Ten minutes off is outside the 5-minute tolerance of the timestamped schemes (GitLab's token has no time).
      if (scheme !== 'hmac-sha256' && scheme !== 'gitlab-token') {
        const tenMinutesAgo = new Date(Date.now() - 600_000);
        const payload = { type: 'ping', webhookTimestamp: tenMinutesAgo.getTime() };
        const stale = alice.events.send({ org_id: 'acme', source, scheme, secret: webhook.webhook_secret as string, payload, timestamp: tenMinutesAgo });
        expect((await failure(stale)).status, scheme).toBe(401);
      }
    }
  });

  it('validates an automation draft against a sample and the recent deliveries, and refuses an invalid one as a typed 422', async () => {
    const draft = { name: 'v', trigger: trigger('linear', 'Issue', "action == 'create'"), instructions: 'x' };
    const answer = await alice.automations.validate({ automation: draft, sample_payload: { type: 'Issue', action: 'create' }, test_recent: 1 });
    expect(answer.valid).toBe(true);
    expect(answer.results[0]).toEqual({
      payload: 'sample',
      delivery_id: null,
      received_at: null,
      event_key: 'Issue',
      matched: true,
      reason: 'matched',
      detail: null,
    });
    expect(answer.results.slice(1).every((result) => result.payload === 'delivery')).toBe(true);
    const invalid = await failure(alice.automations.validate({ automation: { ...draft, trigger: trigger('linear', 'Issue', 'nope(') } }));
    expect([invalid.status, invalid.code]).toEqual([422, 'VALIDATION_FAILED']);
  });

  it('sends GitHub deliveries (JSON and form bodies) to the orgs linked to the repository owner', async () => {
    await service.platform.githubLinks.link({ orgId: 'acme', account: 'acme-gh' });
    const automation = await alice.automations.create({
      name: 'pr',
      trigger: trigger('github', 'pull_request.*', 'pull_request.draft == `false`'),
      instructions: 'Review',
    });
    const payload = { action: 'opened', pull_request: { draft: false, title: 'Fix' }, repository: { full_name: 'acme-gh/app', owner: { login: 'acme-gh' } } };
    const json = await alice.events.sendGitHub({ event: 'pull_request', payload, secret: GITHUB_SECRET });
    expect(json).toMatchObject({ matched: 1 });
    const form = await alice.events.sendGitHub({ event: 'pull_request', payload, secret: GITHUB_SECRET, form: true });
    expect(form).toMatchObject({ matched: 1 });
    const repeat = await alice.events.sendGitHub({ event: 'pull_request', payload, secret: GITHUB_SECRET, delivery: 'gh-fixed-1' });
    expect(repeat.duplicate).toBeUndefined();
    expect((await alice.events.sendGitHub({ event: 'pull_request', payload, secret: GITHUB_SECRET, delivery: 'gh-fixed-1' })).duplicate).toBe(true);
    expect((await failure(alice.events.sendGitHub({ event: 'pull_request', payload, secret: 'wrong' }))).status).toBe(401);
    const delivery = await alice.deliveries.get(json.delivery_id as string);
    expect(delivery).toMatchObject({ source: 'github', event_key: 'pull_request.opened' });
    expect((await alice.automations.runs(automation.id)).total).toBe(3);
  });

  it('dispatches, cancels (409 the second time) and keeps runs from other orgs', async () => {
    const automation = await alice.automations.create({ name: 'sleepy', trigger: trigger('linear', 'Never'), instructions: 'sleep please' });
    const run = await alice.automations.dispatch(automation.id, { payload: { why: 'manual' } });
    expect(run).toMatchObject({ status: 'PENDING', trigger: 'manual' });
    expect((await failure(mallory.automations.getRun(run.id))).status).toBe(404);
    expect((await failure(mallory.automations.cancelRun(run.id))).status).toBe(404);
    const cancelled = await alice.automations.cancelRun(run.id);
    expect(cancelled.status).toBe('CANCELLED');
    expect((await failure(alice.automations.cancelRun(run.id))).code).toBe('CONFLICT');
    expect((await alice.automations.waitForRun(run.id)).status).toBe('CANCELLED');
  });

  it('waitForRun answers a FAILED run with its reason, and times out with the last state seen', async () => {
    const failing = await alice.automations.create({ name: 'failing', trigger: trigger('linear', 'Never'), instructions: 'fail now' });
    const failed = await alice.automations.waitForRun((await alice.automations.dispatch(failing.id)).id, { timeoutMs: 30_000 });
    expect(failed.status).toBe('FAILED');
    expect(failed.error_detail).toContain('quota exceeded');

    const sleepy = await alice.automations.create({ name: 'sleepy2', trigger: trigger('linear', 'Never'), instructions: 'sleep a while' });
    const run = await alice.automations.dispatch(sleepy.id);
    const error = await alice.automations.waitForRun(run.id, { timeoutMs: 300, intervalMs: 50 }).catch((e: unknown) => e);
    expect(isAgentPlatformWaitError(error)).toBe(true);
    expect(error).toBeInstanceOf(AgentPlatformWaitError);
    const wait = error as AgentPlatformWaitError;
    expect(wait.reason).toBe('timeout');
    expect(wait.subject.kind).toBe('run');
    expect(['PENDING', 'RUNNING']).toContain(wait.subject.last?.status);
    await alice.automations.cancelRun(run.id);
  });
});

describe('sandboxes and sandbox specs', () => {
  it('searches specs, starts, gets, pauses, resumes and deletes a sandbox', async () => {
    const specs = await alice.sandboxSpecs.search();
    pageSchema(sandboxSpecSchema).parse(specs);
    expect(specs.items.length).toBeGreaterThan(0);
    expect(await collect(alice.sandboxSpecs.iterate({ pageSize: 1 }))).toEqual(specs.items);

    const sandbox = sandboxSchema.parse(await alice.sandboxes.start({ sandbox_spec_id: specs.items[0]?.id }));
    expect(sandbox).toMatchObject({ status: 'RUNNING', created_by_user_id: 'alice', session_api_key: expect.any(String) });
    expect((await alice.sandboxes.get(sandbox.id)).id).toBe(sandbox.id);
    expect(await alice.sandboxes.getMany([sandbox.id, 'sbx_unknown'])).toEqual([expect.objectContaining({ id: sandbox.id }), null]);
    expect((await failure(mallory.sandboxes.get(sandbox.id))).code).toBe('NOT_FOUND');
    expect(await alice.sandboxes.pause(sandbox.id)).toEqual({ success: true });
    expect((await alice.sandboxes.get(sandbox.id)).status).toBe('PAUSED');
    expect(await alice.sandboxes.resume(sandbox.id)).toEqual({ success: true });
    expect((await alice.sandboxes.get(sandbox.id)).status).toBe('RUNNING');
    const all = await collect(alice.sandboxes.iterate({ pageSize: 1 }));
    expect(all.map((item) => item.id)).toContain(sandbox.id);
    expect(await alice.sandboxes.delete(sandbox.id)).toEqual({ success: true });
    expect((await failure(alice.sandboxes.pause(sandbox.id))).status).toBe(404);
  });

  it('an unknown spec is a 422; getMany with no ids sends nothing; over 100 ids go in several requests', async () => {
    expect((await failure(alice.sandboxes.start({ sandbox_spec_id: 'no-such-spec' }))).status).toBe(422);
    const before = service.requests.length;
    expect(await alice.sandboxes.getMany([])).toEqual([]);
    expect(service.requests.length).toBe(before);
    const ids = Array.from({ length: 250 }, (_, i) => `sbx_missing_${i}`);
    const found = await alice.sandboxes.getMany(ids);
    expect(found).toHaveLength(250);
    expect(found.every((entry) => entry === null)).toBe(true);
    expect(service.requests.length - before).toBe(3);
  });
});

describe('conversations', () => {
  it('starts a conversation, waits until READY, then reads it, its events, and lists', async () => {
    const task = startTaskSchema.parse(await alice.conversations.start({ initial_message: 'list the files', selected_branch: 'main' }));
    const ready = await alice.conversations.waitUntilReady(task.id, { timeoutMs: 30_000 });
    expect(ready).toMatchObject({ id: task.id, status: 'READY', app_conversation_id: expect.any(String), sandbox_id: expect.any(String) });
    const conversation = appConversationSchema.parse(await alice.conversations.get(ready.app_conversation_id));
    expect(conversation).toMatchObject({ trigger: 'api', selected_repository: null, selected_branch: 'main', title: 'list the files' });
    await service.platform.conversations.settled();

    const page = await alice.conversations.events(conversation.id, { limit: 100 });
    pageSchema(conversationEventSchema).parse(page);
    expect(page.items[0]).toMatchObject({ kind: 'MessageEvent', source: 'user', message: 'list the files' });
    expect(await collect(alice.conversations.iterateEvents(conversation.id, { pageSize: 1 }))).toEqual(page.items);

    expect((await alice.conversations.list()).items.map((item) => item.id)).toContain(conversation.id);
    expect((await alice.conversations.search({ limit: 1 })).items).toHaveLength(1);
    expect((await collect(alice.conversations.iterate({ pageSize: 1 }))).map((item) => item.id)).toContain(conversation.id);
    expect(await alice.conversations.getMany([conversation.id, 'conv_unknown'])).toEqual([expect.objectContaining({ id: conversation.id }), null]);
    expect(await alice.conversations.startTasks([task.id])).toEqual([expect.objectContaining({ id: task.id, status: 'READY' })]);
    expect((await alice.conversations.searchStartTasks()).items.map((item) => item.id)).toContain(task.id);
    expect((await failure(mallory.conversations.get(conversation.id))).status).toBe(404);
  });

  it('waitUntilReady: a start that fails throws a wait error with the task; an unknown task is a 404', async () => {
    // The real process runtime, made to fail when a sandbox starts (a full disk, say).
    const runtime = createProcessRuntime();
    const failing: SandboxRuntime = {
      name: runtime.name,
      listSpecs: () => runtime.listSpecs(),
      start: () => Promise.reject(new Error('no space left on device')),
      inspect: (id) => runtime.inspect(id),
      pause: (id) => runtime.pause(id),
      resume: (id) => runtime.resume(id),
      delete: (id) => runtime.delete(id),
      exec: (id, input) => runtime.exec(id, input),
      close: () => runtime.close(),
    };
    const broken = await startInProcess({ runtime: failing });
    const task = await broken.client('alice').conversations.start({ initial_message: 'x' });
    const error = await broken
      .client('alice')
      .conversations.waitUntilReady(task.id, { timeoutMs: 30_000 })
      .catch((e: unknown) => e);
    await broken.close();
    await runtime.close();
    expect(isAgentPlatformWaitError(error)).toBe(true);
    const wait = error as AgentPlatformWaitError;
    expect(wait.reason).toBe('failed');
    expect(wait.subject).toMatchObject({ kind: 'start-task', last: { id: task.id, status: 'ERROR', detail: expect.any(String) } });
    expect((await failure(alice.conversations.waitUntilReady('task_unknown'))).status).toBe(404);
    expect((await failure(mallory.conversations.waitUntilReady(task.id))).status).toBe(404);
  });
});

/** The entries of a zip, by name (stored or deflated), read from its local headers. */
function unzip(bytes: Uint8Array): Map<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = new Map<string, string>();
  for (let at = 0; view.getUint32(at, true) === 0x04034b50; ) {
    const method = view.getUint16(at + 8, true);
    const size = view.getUint32(at + 18, true);
    const nameLength = view.getUint16(at + 26, true);
    const start = at + 30 + nameLength + view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLength));
    const data = bytes.subarray(start, start + size);
    entries.set(name, new TextDecoder().decode(method === 8 ? inflateRawSync(data) : data));
    at = start + size;
  }
  return entries;
}

describe('conversations: rename, delete, download and read a file', () => {
  // An agent that writes a file in its workspace, then prints its task.
  const WRITER = ['mkdir -p notes && printf "hello from the agent\\n" > notes/hello.txt', 'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"'].join('; ');
  let writing: InProcessService;
  let owner: AgentPlatformClient;
  beforeAll(async () => {
    writing = await startInProcess({ agent: createCommandAgentRunner({ command: WRITER }) });
    owner = writing.client('alice');
  });
  afterAll(() => writing.close());

  /** A conversation whose agent has finished. */
  async function finished(message: string): Promise<string> {
    const task = await owner.conversations.start({ initial_message: message });
    const ready = await owner.conversations.waitUntilReady(task.id, { timeoutMs: 30_000 });
    await writing.platform.conversations.settled();
    return ready.app_conversation_id;
  }

  it('renames (null clears the title), and hides another user’s conversation', async () => {
    const id = await finished('rename me');
    const renamed = appConversationSchema.parse(await owner.conversations.rename(id, 'Renamed'));
    expect(renamed).toMatchObject({ id, title: 'Renamed' });
    const sent = writing.requests.at(-1)!;
    expect([sent.method, new URL(sent.url).pathname]).toEqual(['PATCH', `/api/v1/app-conversations/${id}`]);
    expect(await sent.clone().json()).toEqual({ title: 'Renamed' });
    expect((await owner.conversations.get(id)).title).toBe('Renamed');
    expect((await owner.conversations.rename(id, null)).title).toBeNull();
    expect((await failure(owner.conversations.rename(id, 'x'.repeat(501)))).status).toBe(422);
    expect((await failure(writing.client('bob').conversations.rename(id, 'mine'))).status).toBe(404);
  });

  it('downloads the conversation as a zip Blob, and reads a file the agent wrote as text', async () => {
    const id = await finished('write a note');
    await owner.conversations.rename(id, 'Exported');

    const zip = await owner.conversations.download(id);
    expect(zip).toBeInstanceOf(Blob);
    expect(zip.type).toBe('application/zip');
    const files = unzip(new Uint8Array(await zip.arrayBuffer()));
    expect(JSON.parse(files.get('meta.json') ?? '{}')).toMatchObject({ id, title: 'Exported' });
    const events = (await owner.conversations.events(id, { limit: 100 })).items;
    expect([...files.keys()].filter((name) => name !== 'meta.json')).toEqual(
      events.map((event) => `event-${String(event.seq).padStart(5, '0')}-${event.id}.json`),
    );
    expect([...files.values()].some((text) => text.includes('task: write a note'))).toBe(true);
    // The same through client.request, typed Blob.
    const again = await owner.request('GET /api/v1/app-conversations/{id}/download', { params: { id } });
    expect(again.size).toBeGreaterThan(0);

    expect(await owner.conversations.readFile(id, 'notes/hello.txt')).toBe('hello from the agent\n');
    expect(new URL(writing.requests.at(-1)!.url).search).toBe('?file_path=notes%2Fhello.txt');
    expect(await owner.request('GET /api/v1/app-conversations/{id}/file', { params: { id }, query: { file_path: 'notes/hello.txt' } })).toBe(
      'hello from the agent\n',
    );
    // Failures are AgentPlatformErrors, as for any JSON endpoint.
    expect((await failure(owner.conversations.readFile(id, 'notes/missing.txt'))).code).toBe('NOT_FOUND');
    expect((await failure(owner.conversations.readFile(id, '../outside.txt'))).status).toBe(422);
    const bob = writing.client('bob');
    expect((await failure(bob.conversations.readFile(id, 'notes/hello.txt'))).status).toBe(404);
    expect((await failure(bob.conversations.download(id))).status).toBe(404);
  });

  it('deletes a conversation with its events and sandbox: then every read is a 404', async () => {
    const id = await finished('delete me');
    const { sandbox_id: sandboxId } = await owner.conversations.get(id);
    expect((await failure(writing.client('bob').conversations.delete(id))).status).toBe(404);
    expect(await owner.conversations.delete(id)).toEqual({ success: true });
    expect((await failure(owner.conversations.get(id))).status).toBe(404);
    expect((await failure(owner.conversations.download(id))).status).toBe(404);
    expect((await failure(owner.conversations.readFile(id, 'notes/hello.txt'))).status).toBe(404);
    expect(await owner.sandboxes.getMany([sandboxId as string])).toEqual([null]);
    expect((await failure(owner.conversations.delete(id))).status).toBe(404);
  });
});

describe('system', () => {
  it('health, readiness, the automation service’s health and the OpenAPI document need no key', async () => {
    const anonymous = service.client(null);
    expect(await anonymous.system.health()).toEqual({ status: 'ok' });
    expect(await anonymous.system.live()).toEqual({ status: 'ok' });
    const ready = { status: 'ready', checks: { storage: { status: 'ok' }, migrations: expect.any(Object), runtime: expect.any(Object) } };
    expect(await anonymous.system.ready()).toMatchObject(ready);
    expect(await anonymous.system.readiness()).toMatchObject(ready);
    const health = automationHealthSchema.parse(await anonymous.system.automationHealth());
    expect(health).toMatchObject({ status: 'ok', storage: 'ok', pending_runs: expect.any(Number) });
    expect(new URL(service.requests.at(-1)!.url).pathname).toBe('/api/automation/health');
    expect(service.requests.at(-1)!.headers.get('authorization')).toBeNull();
    // With a key configured, none is sent either.
    await alice.system.automationHealth();
    expect(service.requests.at(-1)!.headers.get('authorization')).toBeNull();
    const document = await anonymous.system.openapi();
    expect(document.openapi).toMatch(/^3\.1/);
  });
});

describe('client.request: any endpoint by its key, typed from the route table', () => {
  it('takes the method and path from the key, fills and encodes the path parameters, and answers the body', async () => {
    const created = await alice.request('POST /api/automation/v1', { json: { name: 'by key', trigger: trigger('by-key'), instructions: 'Do it' } });
    const sent = service.requests.at(-1)!;
    expect([sent.method, new URL(sent.url).pathname]).toEqual(['POST', '/api/automation/v1']);
    expect(automationSchema.parse(created).name).toBe('by key');

    expect(await alice.request('GET /api/automation/v1/{id}', { params: { id: created.id } })).toEqual(created);
    const error = await failure(alice.request('GET /api/automation/v1/runs/{run_id}', { params: { run_id: 'run/../x y' } }));
    expect(error.status).toBe(404);
    expect(new URL(service.requests.at(-1)!.url).pathname).toBe('/api/automation/v1/runs/run%2F..%2Fx%20y');
    await expect(alice.request('DELETE /api/automation/v1/{id}', { params: { id: created.id } })).resolves.toBeUndefined();
    // A path parameter must be given, and not empty: nothing is sent.
    const before = service.requests.length;
    await expect(alice.request('GET /api/automation/v1/{id}', { params: { id: '' } })).rejects.toThrow(TypeError);
    // From plain JavaScript, a string that is not `METHOD /path` is refused too.
    const untyped = alice.request as unknown as (key: string) => Promise<unknown>;
    await expect(untyped('/api/automation/v1')).rejects.toThrow(/Not an endpoint key/);
    expect(service.requests).toHaveLength(before);
  });

  it('sends the query (numbers or strings, repeated for arrays)', async () => {
    const page = await alice.request('GET /api/automation/v1', { query: { limit: '1', offset: 0 } });
    expect(page.automations.length).toBeLessThanOrEqual(1);
    expect(new URL(service.requests.at(-1)!.url).search).toBe('?limit=1&offset=0');
    await alice.request('GET /api/v1/app-conversations/start-tasks', { query: { ids: ['a', 'b'] } });
    expect(new URL(service.requests.at(-1)!.url).search).toBe('?ids=a&ids=b');
  });

  it('sends the credential the route table names: bearer by default, the session key, or none', async () => {
    const both = service.client(null, { apiKey: KEYS.alice, sessionApiKey: KEYS.bob });
    await both.request('GET /api/keys');
    expect(service.requests.at(-1)!.headers.get('authorization')).toBe(`Bearer ${KEYS.alice}`);
    expect(service.requests.at(-1)!.headers.get('x-session-api-key')).toBeNull();

    await both.request('POST /api/settings', { credential: 'session', json: { language: 'en' } });
    expect(service.requests.at(-1)!.headers.get('x-session-api-key')).toBe(KEYS.bob);
    expect(service.requests.at(-1)!.headers.get('authorization')).toBeNull();

    expect(await both.request('GET /health', { credential: 'none' })).toEqual({ status: 'ok' });
    expect(service.requests.at(-1)!.headers.get('x-session-api-key')).toBeNull();
    expect(service.requests.at(-1)!.headers.get('authorization')).toBeNull();

    // With one key configured, it goes in the header the call names.
    await service
      .client('alice')
      .request('GET /api/settings', { credential: 'session' })
      .catch(() => undefined);
    expect(service.requests.at(-1)!.headers.get('x-session-api-key')).toBe(KEYS.alice);
  });

  it('maps failures as every method does, and takes per-call options', async () => {
    const error = await failure(
      alice.request('POST /api/automation/v1', { json: { name: '', trigger: trigger('x'), instructions: 'i' } }, { headers: { 'x-extra': 'yes' } }),
    );
    expect(error).toMatchObject({ status: 422, code: 'VALIDATION_FAILED', method: 'POST' });
    expect(error.issues.map((issue) => issue.loc.join('.'))).toContain('body.name');
    expect(service.requests.at(-1)!.headers.get('x-extra')).toBe('yes');
  });
});
