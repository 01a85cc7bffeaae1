/**
 * Spend budgets end to end, through the reference server as a team runs it: the owner caps the
 * org's monthly spend; the built-in agent (the fake LLM, priced as gpt-4o) stops before the model
 * call after the cap is reached, with the cap and the figures as the run's reason; a new event's
 * run does not start; a dispatch answers 429 with `Retry-After`; the usage report sums to the
 * costs the runs recorded; a viewer reads spend but cannot set a budget; raising the cap lets
 * work start again; each change is in the audit log.
 */
import { startFakeLlmServer, type FakeLlmServer } from '@agent-platform/testing/fake-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiCall } from './support/http-api.js';
import { pollFor } from './support/polling.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { sendCiEvent } from './support/signed-events.js';

const OWNER_KEY = 'e2e-budgets-owner-key-0123456789abcdef';
const VIEWER_KEY = 'e2e-budgets-viewer-key-0123456789abcdef';
const LLM_KEY = 'sk-e2e-budgets-4242424242';

/** Every model call: 40,000 tokens in and 1,000 out at gpt-4o's price ($2.50/M in, $10/M out) — $0.11. */
const CALL_COST = (40_000 * 2.5 + 1000 * 10) / 1e6;

describe('spend budgets on the reference server', () => {
  let server: RunningServer;
  let llm: FakeLlmServer;
  let owner: ApiCall;
  let viewer: ApiCall;
  let webhookSecret: string;

  const automation = async (name: string, on: string) =>
    (await owner('POST', '/api/automation/v1', { name, trigger: { type: 'event', source: 'ci', on }, instructions: `task:${name} keep going` })).json;
  const send = (type: string) => sendCiEvent(server.baseUrl, webhookSecret, { type });
  const finishedRun = (automationId: string): Promise<any> =>
    pollFor(
      async () => (await owner('GET', `/api/automation/v1/${automationId}/runs`)).json.runs[0],
      (run) => run && ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(run.status),
      'the run did not finish',
    );

  beforeAll(async () => {
    // The agent never finishes on its own: only a cap (or its iterations) stops it.
    llm = await startFakeLlmServer({
      apiKey: LLM_KEY,
      respond: () => ({ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }], usage: { input: 40_000, output: 1000 } }),
    });
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${OWNER_KEY},victor@acme/viewer:${VIEWER_KEY}`,
      AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 12).toString('base64'),
    });
    owner = apiClient(server.baseUrl, OWNER_KEY);
    viewer = apiClient(server.baseUrl, VIEWER_KEY);
    webhookSecret = (await owner('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci' })).json.webhook_secret;
    const settings = await owner('POST', '/api/settings', {
      llm_model: 'openai/gpt-4o',
      llm_api_key: LLM_KEY,
      llm_base_url: `${llm.url}/v1`,
      max_iterations: 10,
    });
    expect(settings.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
  }, 60_000);

  it('a viewer reads budgets and usage but cannot set a budget; a typo in a budget is refused', async () => {
    const refused = await viewer('PUT', '/api/automation/v1/budgets', { scope: 'org', period: 'month', limit_usd: 1 });
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toContain('needs the owner role');
    expect((await viewer('GET', '/api/automation/v1/budgets')).status).toBe(200);
    expect((await viewer('GET', '/api/automation/v1/usage')).status).toBe(200);
    const typo = await owner('PUT', '/api/automation/v1/budgets', { scope: 'org', period: 'month', limit_usd: 1, limt_usd: 2 });
    expect(typo.status).toBe(422);
    expect(JSON.stringify(typo.json.detail)).toContain('limt_usd');
    const subjectless = await owner('PUT', '/api/automation/v1/budgets', { scope: 'user', period: 'day', limit_usd: 1 });
    expect(subjectless.status).toBe(422);
    expect(JSON.stringify(subjectless.json.detail)).toContain('subject_id');
  });

  it('past the monthly cap the agent stops before its next model call, new runs do not start, a dispatch is 429, and usage sums to the costs', async () => {
    const set = await owner('PUT', '/api/automation/v1/budgets', { scope: 'org', period: 'month', limit_usd: 0.25 });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ scope: 'org', subject_id: null, period: 'month', limit_usd: 0.25, spent_usd: 0, exceeded: false });

    const spender = await automation('spender', 'spend.now');
    expect((await send('spend.now')).matched).toBe(1);
    const run = await finishedRun(spender.id);
    // $0.11 a call: after the third ($0.33) the cap of $0.25 is reached, and the fourth is never made.
    expect(run.status).toBe('FAILED');
    expect(run.metrics).toMatchObject({ llm_calls: 3 });
    expect(run.metrics.accumulated_cost).toBeCloseTo(3 * CALL_COST, 6);
    expect(run.error_detail).toMatch(/^budget exceeded: the org's monthly budget of \$0\.25 is spent \(\$0\.33 since \d{4}-\d{2}-01; it resets at /);
    expect(llm.requests.length).toBe(3);

    // A new event's run is not started, and says why.
    const other = await automation('other', 'other.now');
    expect((await send('other.now')).matched).toBe(1);
    const skipped = await finishedRun(other.id);
    expect(skipped.status).toBe('SKIPPED');
    expect(skipped.error_detail).toMatch(/^not started: budget exceeded: the org's monthly budget of \$0\.25 is spent/);
    expect(skipped.conversation_id).toBeNull();
    expect(llm.requests.length).toBe(3);

    // A dispatch answers at once.
    const dispatch = await fetch(`${server.baseUrl}/api/automation/v1/${other.id}/dispatch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OWNER_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(dispatch.status).toBe(429);
    expect(((await dispatch.json()) as { detail: string }).detail).toContain("the org's monthly budget of $0.25 is spent");
    const retryAfter = Number(dispatch.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(31 * 86_400);

    // The usage report sums to what the run recorded, by automation, user and model.
    const usage = (await viewer('GET', '/api/automation/v1/usage')).json;
    expect(usage.total.cost_usd).toBeCloseTo(run.metrics.accumulated_cost, 6);
    expect(usage.total).toMatchObject({ llm_calls: 3, prompt_tokens: 120_000, completion_tokens: 3000 });
    expect(usage.by_automation).toEqual([expect.objectContaining({ automation_id: spender.id, llm_calls: 3 })]);
    expect(usage.by_user).toEqual([expect.objectContaining({ user_id: 'alice', llm_calls: 3 })]);
    expect(usage.by_model).toEqual([expect.objectContaining({ model: 'openai/gpt-4o', llm_calls: 3 })]);
    expect(usage.by_day).toHaveLength(1);
    const budgets = (await viewer('GET', '/api/automation/v1/budgets')).json.budgets;
    expect(budgets).toEqual([expect.objectContaining({ limit_usd: 0.25, exceeded: true })]);
    expect(budgets[0].spent_usd).toBeCloseTo(3 * CALL_COST, 6);

    // Raising the cap lets work start again; both changes are in the audit log.
    expect((await owner('PUT', '/api/automation/v1/budgets', { scope: 'org', period: 'month', limit_usd: 100 })).json).toMatchObject({
      id: set.json.id,
      limit_usd: 100,
      exceeded: false,
    });
    expect((await owner('POST', `/api/automation/v1/${other.id}/dispatch`, {})).status).toBe(201);
    const audit = (await owner('GET', '/api/automation/v1/audit?action=budget.set')).json.entries;
    expect(audit.map((entry: any) => entry.details.limit_usd)).toEqual([0.25, 100]);
    expect(audit[0]).toMatchObject({ actor: { id: 'alice', role: 'owner' }, target: { type: 'budget', id: set.json.id } });
  });

  it('an automation cap stops only that automation; removing it frees it', async () => {
    const capped = await automation('capped', 'capped.now');
    const set = await owner('PUT', '/api/automation/v1/budgets', { scope: 'automation', subject_id: capped.id, period: 'day', limit_usd: 0.05 });
    expect(set.status).toBe(200);
    await owner('POST', `/api/automation/v1/${capped.id}/dispatch`, {});
    const run = await finishedRun(capped.id);
    // One call ($0.11) passes the $0.05 cap: the agent stops before the second.
    expect(run).toMatchObject({ status: 'FAILED', metrics: { llm_calls: 1 } });
    expect(run.error_detail).toContain(`automation ${capped.id}'s daily budget of $0.05 is spent ($0.11 on `);
    expect((await owner('POST', `/api/automation/v1/${capped.id}/dispatch`, {})).status).toBe(429);
    // Another automation is not held by it (the org's cap is $100 now).
    const free = await automation('free', 'free.now');
    expect((await owner('POST', `/api/automation/v1/${free.id}/dispatch`, {})).status).toBe(201);
    expect((await owner('DELETE', `/api/automation/v1/budgets/${set.json.id}`)).status).toBe(204);
    expect((await owner('DELETE', `/api/automation/v1/budgets/${set.json.id}`)).status).toBe(404);
    expect((await owner('POST', `/api/automation/v1/${capped.id}/dispatch`, {})).status).toBe(201);
  });
});
