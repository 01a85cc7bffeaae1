/**
 * The typed client over a real socket, against the reference server run as a user would run it;
 * then the client example program (examples/client-quickstart) run as a user would run it, twice
 * (the second run finds its webhook and automation already there).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { collect, createClient, isAgentPlatformError, type AgentPlatformClient, type AgentPlatformError } from '@agent-platform/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-client-key-0123456789abcdef';
const OTHER_KEY = 'e2e-client-other-0123456789abcd';
const GITHUB_SECRET = 'e2e-client-github-secret';
const LLM_KEY = 'sk-e2e-client-llm-key-77';

let server: RunningServer;
let client: AgentPlatformClient;
const secrets: string[] = [KEY, OTHER_KEY, GITHUB_SECRET, LLM_KEY];

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => {
      if (!isAgentPlatformError(error)) throw error;
      return error as AgentPlatformError;
    },
  );

beforeAll(async () => {
  server = await startServer('examples/server', {
    AGENT_PLATFORM_SANDBOX: 'process',
    AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY},mallory@evil:${OTHER_KEY}`,
    AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
    AGENT_PLATFORM_GITHUB_LINKS: 'acme-gh=acme',
    // Alice stores a (fake) llm_model to check settings; her runs are the demo agent's.
    AGENT_PLATFORM_BUILTIN_AGENT: 'off',
  });
  client = createClient({ baseUrl: server.baseUrl, apiKey: KEY });
}, 60_000);

afterAll(async () => {
  if (server) expect(await stopServer(server)).toBe(0);
  const logs = server?.output.join('') ?? '';
  for (const secret of secrets) expect(logs).not.toContain(secret);
}, 60_000);

describe('the client against the reference server', () => {
  it('is ready, and refuses a wrong key with a 401 it can act on', async () => {
    expect(await client.system.readiness()).toMatchObject({ status: 'ready', checks: { storage: { status: 'ok' }, migrations: expect.any(Object) } });
    const error = await failure(createClient({ baseUrl: server.baseUrl, apiKey: 'not-a-key-0000000000' }).webhooks.list());
    expect([error.status, error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('stores settings with the session key, and reads them back without secrets', async () => {
    const session = createClient({ baseUrl: server.baseUrl, sessionApiKey: KEY });
    await session.settings.store({ llm_model: 'e2e/model', llm_api_key: LLM_KEY });
    await session.gitProviders.store({ provider_tokens: { github: { token: 'ghp_e2e_client_token_1' } } });
    secrets.push('ghp_e2e_client_token_1');
    const settings = await session.settings.get();
    expect(settings).toMatchObject({ llm_model: 'e2e/model', llm_api_key: null, llm_api_key_set: true, provider_tokens_set: { github: null } });
    expect(JSON.stringify(settings)).not.toContain(LLM_KEY);
  });

  it('webhook → automation → signed event → run COMPLETED → the agent’s output; the delivery log agrees', async () => {
    const webhook = await client.webhooks.register({ name: 'Payments', source: 'payments', signature_scheme: 'stripe' });
    secrets.push(webhook.webhook_secret as string);
    const automation = await client.automations.create({
      name: 'refunds',
      trigger: { type: 'event', source: 'payments', on: 'charge.*', filter: 'data.amount > `100`' },
      instructions: 'Check the refund',
    });
    const small = await client.events.send({
      org_id: 'acme',
      source: 'payments',
      scheme: 'stripe',
      secret: webhook.webhook_secret as string,
      payload: { type: 'charge.refunded', data: { amount: 5 } },
    });
    expect(small.matched).toBe(0);
    const big = await client.events.send({
      org_id: 'acme',
      source: 'payments',
      scheme: 'stripe',
      secret: webhook.webhook_secret as string,
      payload: { type: 'charge.refunded', data: { amount: 500 } },
    });
    expect(big.matched).toBe(1);
    const run = await client.automations.waitForRun(big.runs_created[0] as string, { timeoutMs: 60_000 });
    expect(run).toMatchObject({ status: 'COMPLETED', automation_id: automation.id });
    const events = await collect(client.conversations.iterateEvents(run.conversation_id as string));
    expect(events.map((event) => event.message).join('\n')).toContain('Check the refund');
    const outcomes = (await client.deliveries.get(small.delivery_id as string)).outcomes;
    expect(outcomes).toEqual([expect.objectContaining({ automation_id: automation.id, matched: false, reason: 'filter_false' })]);
  });

  it('GitHub deliveries reach the linked org', async () => {
    await client.automations.create({ name: 'issues', trigger: { type: 'event', source: 'github', on: 'issues.opened' }, instructions: 'Triage' });
    const payload = { action: 'opened', issue: { title: 'Bug' }, repository: { full_name: 'acme-gh/app', owner: { login: 'acme-gh' } } };
    const result = await client.events.sendGitHub({ event: 'issues', payload, secret: GITHUB_SECRET });
    expect(result.matched).toBe(1);
  });

  it('starts a conversation and waits until it is READY; sandboxes start, pause, resume and delete', async () => {
    const task = await client.conversations.start({ initial_message: 'hello there' });
    const ready = await client.conversations.waitUntilReady(task.id, { timeoutMs: 60_000 });
    expect((await client.conversations.get(ready.app_conversation_id)).id).toBe(ready.app_conversation_id);

    const [spec] = (await client.sandboxSpecs.search()).items;
    const sandbox = await client.sandboxes.start({ sandbox_spec_id: spec?.id });
    expect(sandbox.status).toBe('RUNNING');
    await client.sandboxes.pause(sandbox.id);
    expect((await client.sandboxes.get(sandbox.id)).status).toBe('PAUSED');
    await client.sandboxes.resume(sandbox.id);
    await client.sandboxes.delete(sandbox.id);
    expect((await failure(client.sandboxes.pause(sandbox.id))).status).toBe(404);
  });

  it('another org sees none of it', async () => {
    const other = createClient({ baseUrl: server.baseUrl, apiKey: OTHER_KEY });
    expect((await other.automations.list()).total).toBe(0);
    expect((await other.webhooks.list()).total).toBe(0);
    expect(await collect(other.conversations.iterate())).toEqual([]);
  });
});

describe('examples/client-quickstart', () => {
  const runExample = () =>
    spawnSync(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], {
      cwd: path.join(root, 'examples/client-quickstart'),
      env: { ...process.env, AGENT_PLATFORM_URL: server.baseUrl, AGENT_PLATFORM_API_KEY: KEY },
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('registers, automates, sends a signed event and prints the finished run — twice', () => {
    for (let round = 1; round <= 2; round++) {
      const result = runExample();
      expect(result.stderr, `round ${round}`).toBe('');
      expect(result.status, `round ${round}: ${result.stdout}`).toBe(0);
      expect(result.stdout).toMatch(/matched 1, runs run_/);
      expect(result.stdout).toMatch(/run {7}run_\w+ COMPLETED/);
      expect(result.stdout).toContain('agent   Task: Triage the issue');
    }
  });

  it('explains a wrong key instead of crashing', () => {
    const result = spawnSync(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], {
      cwd: path.join(root, 'examples/client-quickstart'),
      env: { ...process.env, AGENT_PLATFORM_URL: server.baseUrl, AGENT_PLATFORM_API_KEY: 'wrong-key-0000000000' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('The service answered 401 UNAUTHORIZED');
  });
});
