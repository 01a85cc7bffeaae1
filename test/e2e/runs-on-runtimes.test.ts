/**
 * The whole path, on each sandbox runtime, through the reference server run as a user would:
 * a signed event → match → run → sandbox → agent → conversation events → COMPLETED; a failing
 * agent → FAILED with its reason; a cancelled agent → CANCELLED; the owner's settings reach the
 * agent and no secret reaches the stored events. Also a conversation started over the V1 API.
 *
 * Docker: in CI (`.ci/run` starts an engine and builds the image) this must run, not skip.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { serverRuntimes, TEST_IMAGE } from './support/runtimes.js';

const KEY = 'e2e-runs-key-0123456789abcdef';
const SECRET_KEY = Buffer.alloc(32, 9).toString('base64');
const LLM_KEY = 'sk-e2e-runtime-llm-key-42';
const GITHUB_TOKEN = 'ghp_e2e_runtime_token_43';

// A shell agent: shows what reached it (secrets included, which must come out redacted), reads
// the event file, and fails or waits when its instructions say so.
const AGENT = [
  'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"',
  'echo "model=$LLM_MODEL key=$LLM_API_KEY token=$GITHUB_TOKEN author=$GIT_AUTHOR_NAME run=$AGENT_PLATFORM_RUN_ID"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion in a shell script, not a template
  'if [ -n "${AGENT_PLATFORM_EVENT_FILE:-}" ]; then echo "event: $(cat "$AGENT_PLATFORM_EVENT_FILE")"; fi',
  `echo '{"type":"tool","name":"shell"}'`,
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in fail*) echo "could not finish: quota exceeded" >&2; exit 3;; wait*) sleep 120;; esac',
].join('\n');

const runtimes = await serverRuntimes('runs on docker');

describe.each(runtimes)('runs on the $name runtime', ({ name, env }) => {
  let server: RunningServer;
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(server.baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, text: '', json: (await response.json().catch(() => undefined)) as any };
  };
  const automation = async (instructions: string) =>
    (await call('POST', '/api/automation/v1', { name: instructions, trigger: { type: 'event', source: 'ci', on: `build.${instructions}` }, instructions }))
      .json;
  const runOf = async (automationId: string, until: (status: string) => boolean) => {
    let run: any;
    for (let i = 0; i < 600; i++) {
      run = (await call('GET', `/api/automation/v1/${automationId}/runs`)).json.runs[0];
      if (run && until(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run did not get there: ${JSON.stringify(run)}`);
  };
  const eventsOf = async (conversationId: string) => {
    const response = await fetch(`${server.baseUrl}/api/v1/app-conversations/${conversationId}/events`, { headers: { authorization: `Bearer ${KEY}` } });
    const text = await response.text();
    return { text, items: (JSON.parse(text) as { items: any[] }).items };
  };

  beforeAll(async () => {
    server = await startServer('examples/server', {
      ...env,
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_AGENT_COMMAND: AGENT,
      // These owners set an llm_model for the command agent to read; the built-in agent stays out.
      AGENT_PLATFORM_BUILTIN_AGENT: 'off',
    });
    expect((await call('POST', '/api/settings', { llm_model: 'e2e/model', llm_api_key: LLM_KEY, git_user_name: 'Alice Agent' })).status).toBe(200);
    expect((await call('POST', '/api/add-git-providers', { provider_tokens: { github: { token: GITHUB_TOKEN } } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    const logs = server?.output.join('') ?? '';
    for (const secret of [LLM_KEY, GITHUB_TOKEN, KEY, SECRET_KEY]) expect(logs).not.toContain(secret);
  }, 60_000);

  it('a signed event runs the agent in a sandbox to COMPLETED, with its output in the conversation and no secret in it', async () => {
    const webhook = (await call('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci' })).json;
    const succeed = await automation('succeed');
    const body = JSON.stringify({ type: 'build.succeed', build: { id: 7, branch: 'main' } });
    const delivery = await fetch(`${server.baseUrl}/api/automation/v1/events/acme/ci`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature-256': `sha256=${createHmac('sha256', webhook.webhook_secret).update(body).digest('hex')}` },
    });
    expect(delivery.status).toBe(200);
    expect(((await delivery.json()) as { matched: number }).matched).toBe(1);

    const run = await runOf(succeed.id, (status) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(status));
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null, conversation_id: expect.any(String), sandbox_id: expect.any(String) });

    const conversation = (await call('GET', `/api/v1/app-conversations/${run.conversation_id}`)).json;
    expect(conversation).toMatchObject({ trigger: 'automation', execution_status: 'finished', title: 'succeed' });
    const { text, items } = await eventsOf(run.conversation_id);
    expect(items[0]).toMatchObject({ kind: 'MessageEvent', source: 'user', message: expect.stringContaining('"branch":"main"') });
    const outputs = items.filter((event) => event.kind === 'agent_output').map((event) => event.message);
    expect(outputs).toContain('task: succeed');
    expect(outputs).toContain(`model=e2e/model key=[redacted] token=[redacted] author=Alice Agent run=${run.id}`);
    expect(outputs).toContain(`event: ${body}`);
    expect(items).toContainEqual(expect.objectContaining({ kind: 'agent_event', data: { type: 'tool', name: 'shell' } }));
    expect(items.at(-2)).toMatchObject({ kind: 'ConversationStateUpdateEvent', source: 'environment', data: { key: 'execution_status', value: 'finished' } });
    expect(items.at(-1)).toMatchObject({ kind: 'status', data: { status: 'COMPLETED', reason: null } });
    expect(text).not.toContain(LLM_KEY);
    expect(text).not.toContain(GITHUB_TOKEN);
    // The run's sandbox is removed when it ends.
    expect((await call('GET', `/api/v1/sandboxes?id=${run.sandbox_id}`)).json).toEqual([expect.objectContaining({ status: 'MISSING' })]);
  });

  it('a failing agent ends the run FAILED with the end of its error output', async () => {
    const fail = await automation('fail');
    expect((await call('POST', `/api/automation/v1/${fail.id}/dispatch`, { payload: { type: 'manual' } })).status).toBe(201);
    const run = await runOf(fail.id, (status) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(status));
    expect(run.status).toBe('FAILED');
    expect(run.error_detail).toContain('could not finish: quota exceeded');
    const { items } = await eventsOf(run.conversation_id);
    expect(items.at(-1)).toMatchObject({ kind: 'status', data: { status: 'FAILED' } });
  });

  it('cancelling a running agent kills it and ends the run CANCELLED', async () => {
    const wait = await automation('wait');
    await call('POST', `/api/automation/v1/${wait.id}/dispatch`, {});
    const running = await runOf(wait.id, (status) => status === 'RUNNING');
    // Wait for the agent to be under way (its first output), then cancel.
    for (let i = 0; i < 200; i++) {
      const current = (await call('GET', `/api/automation/v1/${wait.id}/runs`)).json.runs[0];
      if (current.conversation_id && (await eventsOf(current.conversation_id)).items.some((event: any) => event.kind === 'agent_output')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const began = Date.now();
    const cancelled = await call('POST', `/api/automation/v1/runs/${running.id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('CANCELLED');
    // The agent is killed well before its 120 s sleep would end; the conversation says so.
    let conversation: any;
    for (let i = 0; i < 400; i++) {
      conversation = (await call('GET', `/api/v1/app-conversations/${cancelled.json.conversation_id ?? running.conversation_id}`)).json;
      if (conversation?.execution_status === 'stopped') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(conversation.execution_status).toBe('stopped');
    expect(Date.now() - began).toBeLessThan(30_000);
    expect((await runOf(wait.id, () => true)).status).toBe('CANCELLED');
  });

  it('starts a conversation over the V1 API: a sandbox of the runtime, the agent on the first message', async () => {
    const specs = (await call('GET', '/api/v1/sandbox-specs/search')).json;
    expect(specs.items[0].id).toBe(name === 'docker' ? TEST_IMAGE : 'process-default');
    const task = (await call('POST', '/api/v1/app-conversations', { initial_message: 'say hello' })).json;
    let current = task;
    for (let i = 0; i < 400 && !['READY', 'ERROR'].includes(current.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = (await call('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`)).json[0];
    }
    expect(current).toMatchObject({ status: 'READY', sandbox_id: expect.any(String) });
    let conversation: any;
    for (let i = 0; i < 400; i++) {
      conversation = (await call('GET', `/api/v1/app-conversations/${current.app_conversation_id}`)).json;
      if (conversation.execution_status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(conversation.execution_status).toBe('finished');
    const { items } = await eventsOf(current.app_conversation_id);
    expect(items.map((event: any) => event.message)).toContain('task: say hello');
    const sandbox = (await call('GET', `/api/v1/sandboxes?id=${current.sandbox_id}`)).json[0];
    expect(sandbox).toMatchObject({ status: 'RUNNING', session_api_key: expect.any(String) });
    expect((await call('DELETE', `/api/v1/sandboxes/${current.sandbox_id}`)).json).toEqual({ success: true });
  });
});

describe.each(runtimes)('the demo agent on the $name runtime (no agent configured)', ({ env }) => {
  it('runs a dispatched automation to COMPLETED', async () => {
    const server = await startServer('examples/server', { ...env, AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`, AGENT_PLATFORM_SECRET_KEY: SECRET_KEY });
    try {
      const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
      const post = (route: string, body: unknown) =>
        fetch(server.baseUrl + route, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.json() as any);
      const automation = await post('/api/automation/v1', { name: 'demo', trigger: { type: 'event', source: 'ci', on: 'demo' }, instructions: 'Say hello' });
      await post(`/api/automation/v1/${automation.id}/dispatch`, { payload: { hello: 'world' } });
      let run: any;
      for (let i = 0; i < 600 && !['COMPLETED', 'FAILED'].includes(run?.status); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        run = ((await fetch(`${server.baseUrl}/api/automation/v1/${automation.id}/runs`, { headers }).then((r) => r.json())) as any).runs[0];
      }
      expect(run).toMatchObject({ status: 'COMPLETED' });
      const events = (await fetch(`${server.baseUrl}/api/v1/app-conversations/${run.conversation_id}/events`, { headers }).then((r) => r.json())) as any;
      expect(events.items.map((event: any) => event.message)).toContain('Task: Say hello');
      expect(events.items).toContainEqual(expect.objectContaining({ kind: 'agent_event', data: { type: 'observation', source: 'event', payload_bytes: 17 } }));
    } finally {
      expect(await stopServer(server)).toBe(0);
    }
  }, 60_000);
});
