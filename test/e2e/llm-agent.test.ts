/**
 * The built-in LLM agent end to end, through the reference server run as a user runs it, on the
 * process runtime and on Docker: the owner stores an LLM key and model (pointed at the fake LLM
 * server, which speaks the OpenAI wire format), an event fires an automation, and the agent
 * runs commands and edits a file in the sandbox; the run ends with its cost. Also: max
 * iterations, the budget, a provider 401, an MCP tool on a real MCP server, and an automation the
 * agent creates that a later event fires.
 *
 * The fake model is scripted by task: the first user message names the task, and the number of
 * assistant messages so far says which step it is at.
 */
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServer, type LoopbackMcpServer } from './support/mcp-server.js';
import { apiClient, type ApiCall } from './support/http-api.js';
import { pollFor } from './support/polling.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { serverRuntimes } from './support/runtimes.js';
import { firstAsk, stepOf, call as toolCall } from './support/scripted-steps.js';
import { sendCiEvent } from './support/signed-events.js';

const KEY = 'e2e-llm-agent-key-0123456789abcdef';
const SECRET_KEY = Buffer.alloc(32, 11).toString('base64');
const LLM_KEY = 'sk-e2e-llm-agent-key-4242424242';
const MCP_KEY = 'mcp-e2e-key-0123456789';
const CUSTOM_SECRET = 'custom-secret-value-31337';

const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c === c.toLowerCase() ? 97 : 65)));

/** The task a request belongs to (its first user message) and how many steps it has taken. */
function taskOf(request: RecordedLlmRequest): { task: string; step: number } {
  const { asked, step } = firstAsk(request);
  return { task: /task:([a-z-]+)/.exec(asked)?.[1] ?? 'unknown', step };
}

/** A tool call, priced as 2,000 tokens in and 100 out. */
const call = (name: string, args: Record<string, unknown>): FakeLlmTurn => ({ ...toolCall(name, args), usage: { input: 2000, output: 100 } });

const SCRIPTS: Record<string, (step: number) => FakeLlmTurn> = {
  edit: (step) =>
    stepOf(
      [
        call('terminal', { command: "printf 'hello world\\n' > hello.txt && ls" }),
        call('file_editor', { command: 'str_replace', path: 'hello.txt', old_str: 'world', new_str: 'agents' }),
        call('terminal', { command: "cat hello.txt && echo \"token=$DEPLOY_TOKEN\" && env | tr 'A-Za-z' 'N-ZA-Mn-za-m'" }),
        call('finish', { message: 'hello.txt now greets the agents' }),
      ],
      step,
    ),
  loop: () => call('terminal', { command: 'true' }),
  spend: () => ({ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }], usage: { input: 400_000, output: 1000 } }),
  mcp: (step) => (step === 0 ? call('add', { a: 2, b: 3 }) : call('finish', { message: 'added' })),
  automate: (step) =>
    stepOf(
      [
        call('list_webhook_sources', {}),
        call('create_automation', {
          name: 'follow deploys',
          trigger: { type: 'event', source: 'ci', on: 'deploy.finished' },
          instructions: 'task:followup check the deploy',
        }),
        call('finish', { message: 'created' }),
      ],
      step,
    ),
  followup: () => call('finish', { message: 'followed up on the deploy' }),
};

const runtimes = await serverRuntimes('the built-in agent on docker');

describe.each(runtimes)('the built-in agent on the $name runtime', ({ env }) => {
  let server: RunningServer;
  let llm: FakeLlmServer;
  let mcp: LoopbackMcpServer;
  let webhookSecret: string;

  const api: ApiCall = (method, route, body) => apiClient(server.baseUrl, KEY)(method, route, body);
  const settings = (overrides: Record<string, unknown> = {}) =>
    api('POST', '/api/settings', {
      llm_model: 'openai/gpt-4o',
      llm_api_key: LLM_KEY,
      llm_base_url: `${llm.url}/v1`,
      git_user_name: 'Alice Agent',
      secrets_store: { custom_secrets: { DEPLOY_TOKEN: { secret: CUSTOM_SECRET, description: 'deploys' } } },
      max_iterations: null,
      max_budget_per_task: null,
      ...overrides,
    });
  const automation = async (task: string, on = `task.${task}`) =>
    (await api('POST', '/api/automation/v1', { name: task, trigger: { type: 'event', source: 'ci', on }, instructions: `task:${task} please` })).json;
  const send = (type: string, payload: Record<string, unknown> = {}) => sendCiEvent(server.baseUrl, webhookSecret, { type, ...payload });
  const finishedRun = (automationId: string): Promise<any> =>
    pollFor(
      async () => (await api('GET', `/api/automation/v1/${automationId}/runs`)).json.runs[0],
      (run) => run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status),
      'the run did not finish',
    );
  const eventsOf = async (conversationId: string) => {
    const response = await fetch(`${server.baseUrl}/api/v1/app-conversations/${conversationId}/events?limit=100`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const text = await response.text();
    return { text, items: (JSON.parse(text) as { items: any[] }).items };
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({
      apiKey: LLM_KEY,
      respond: (request) => {
        const { task, step } = taskOf(request);
        return (SCRIPTS[task] ?? (() => ({ text: `no script for ${task}` })))(step);
      },
    });
    mcp = await startMcpServer(MCP_KEY);
    server = await startServer('examples/server', { ...env, AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`, AGENT_PLATFORM_SECRET_KEY: SECRET_KEY });
    expect(server.output.join('')).toContain('owners with llm_model set get the built-in LLM agent');
    webhookSecret = (await api('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci' })).json.webhook_secret;
  }, 60_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
    await mcp?.close();
    const logs = server?.output.join('') ?? '';
    for (const secret of [LLM_KEY, CUSTOM_SECRET, MCP_KEY, KEY]) expect(logs).not.toContain(secret);
  }, 60_000);

  it('an event runs the agent: commands and a file edit in the sandbox, OpenHands events stored, COMPLETED with its cost', async () => {
    expect((await settings()).status).toBe(200);
    const edit = await automation('edit');
    expect((await send('task.edit', { build: 7 })).matched).toBe(1);
    const run = await finishedRun(edit.id);
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    // Four calls of 2,000 + 100 tokens at gpt-4o's price ($2.50/M in, $10/M out).
    expect(run.metrics).toMatchObject({ model_name: 'openai/gpt-4o', llm_calls: 4, cost_known: true });
    expect(run.metrics.accumulated_cost).toBeCloseTo((4 * 2000 * 2.5 + 4 * 100 * 10) / 1e6, 6);
    const conversation = (await api('GET', `/api/v1/app-conversations/${run.conversation_id}`)).json;
    expect(conversation).toMatchObject({ execution_status: 'finished', metrics: { llm_calls: 4 } });

    const { text, items } = await eventsOf(run.conversation_id);
    expect(items.map((event) => event.kind)).toEqual([
      'MessageEvent',
      'agent_event',
      'agent_event',
      ...Array(4).fill(['ActionEvent', 'ObservationEvent']).flat(),
      'ConversationStateUpdateEvent',
      'status',
    ]);
    expect(items[1].data).toMatchObject({ type: 'job_stages' });
    expect(items[2].data).toMatchObject({ type: 'agent_selected', agent: 'coding' });
    const observations = items.filter((event) => event.kind === 'ObservationEvent');
    const catOutput = observations[2].data.observation.content[0].text as string;
    expect(catOutput).toContain('hello agents');
    // The command ran with the custom secret and the git identity, and without the LLM key (rot13,
    // so a scrubber cannot hide what is there); the secret as printed is scrubbed before anyone sees it.
    expect(catOutput).toContain('token=[redacted]');
    expect(catOutput).toContain(rot13(`DEPLOY_TOKEN=${CUSTOM_SECRET}`));
    expect(catOutput).toContain(rot13('GIT_AUTHOR_NAME=Alice Agent'));
    expect(catOutput).not.toContain(rot13(LLM_KEY));
    expect(catOutput).not.toContain(rot13('LLM_API_KEY'));
    expect(text).not.toContain(LLM_KEY);
    expect(text).not.toContain(CUSTOM_SECRET);
    expect(JSON.stringify(llm.requests.map((request) => request.body))).not.toContain(CUSTOM_SECRET);
    expect(JSON.stringify(llm.requests.map((request) => request.body))).toContain('token=[redacted]');
  });

  it('stops FAILED at max_iterations', async () => {
    await settings({ max_iterations: 2 });
    const loop = await automation('loop');
    await api('POST', `/api/automation/v1/${loop.id}/dispatch`, {});
    const run = await finishedRun(loop.id);
    expect(run).toMatchObject({ status: 'FAILED', error_detail: 'max iterations reached (2)', metrics: { llm_calls: 2 } });
  });

  it('stops FAILED when max_budget_per_task is spent, with the cost recorded', async () => {
    await settings({ max_budget_per_task: 1.5 });
    const spend = await automation('spend');
    await api('POST', `/api/automation/v1/${spend.id}/dispatch`, {});
    const run = await finishedRun(spend.id);
    // $1.01 per call: the second call crosses $1.50.
    expect(run.status).toBe('FAILED');
    expect(run.error_detail).toBe('budget exceeded: $2.0200 spent of max_budget_per_task $1.5');
    expect(run.metrics).toMatchObject({ llm_calls: 2, max_budget_per_task: 1.5 });
  });

  it('a provider 401 fails the run with a reason that never holds the key', async () => {
    await settings({ llm_api_key: 'sk-wrong-key-for-this-test-999' });
    const loop = await automation('loop');
    await api('POST', `/api/automation/v1/${loop.id}/dispatch`, {});
    const run = await finishedRun(loop.id);
    expect(run).toMatchObject({ status: 'FAILED', error_detail: 'the LLM provider rejected the API key for openai/gpt-4o (HTTP 401): check llm_api_key' });
    expect(server.output.join('')).not.toContain('sk-wrong');
  });

  it("calls a tool of the owner's MCP server (streamable HTTP, the official SDK)", async () => {
    await settings({ mcp_config: { shttp_servers: [{ url: mcp.url, api_key: MCP_KEY }], sse_servers: [], stdio_servers: [] } });
    const task = await automation('mcp');
    await api('POST', `/api/automation/v1/${task.id}/dispatch`, {});
    const run = await finishedRun(task.id);
    expect(run.status).toBe('COMPLETED');
    expect(mcp.calls.at(-1)).toEqual({ tool: 'add', args: { a: 2, b: 3 } });
    const { items } = await eventsOf(run.conversation_id);
    const observation = items.find((event) => event.kind === 'ObservationEvent');
    expect(observation.data).toMatchObject({ tool_name: 'add', observation: { kind: 'MCPToolObservation', content: [{ text: 'the sum is 5' }] } });
    await settings({ mcp_config: null });
  });

  it('creates an automation for its owner, which a later event then fires', async () => {
    await settings();
    const automate = await automation('automate');
    await api('POST', `/api/automation/v1/${automate.id}/dispatch`, {});
    expect((await finishedRun(automate.id)).status).toBe('COMPLETED');
    // The webhook sources it listed carry no secret.
    const listed = llm.requests.find((request) => taskOf(request).task === 'automate' && taskOf(request).step === 1)!;
    const sources = JSON.parse(listed.body.messages.find((message: any) => message.role === 'tool').content);
    expect(sources).toEqual([expect.objectContaining({ source: 'ci', name: 'CI' })]);
    expect(JSON.stringify(listed.body)).not.toContain(webhookSecret);

    const created = (await api('GET', '/api/automation/v1')).json.automations.find((entry: any) => entry.name === 'follow deploys');
    expect(created).toMatchObject({ enabled: true, trigger: { source: 'ci', on: 'deploy.finished' }, created_by: 'alice' });
    expect((await send('deploy.finished', { env: 'prod' })).matched).toBe(1);
    expect(await finishedRun(created.id)).toMatchObject({ status: 'COMPLETED' });
  });

  it('a conversation started over the V1 API runs the built-in agent on its first message', async () => {
    await settings();
    const task = (await api('POST', '/api/v1/app-conversations', { initial_message: 'task:followup now' })).json;
    let current = task;
    for (let i = 0; i < 400 && !['READY', 'ERROR'].includes(current.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = (await api('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`)).json[0];
    }
    let conversation: any;
    for (let i = 0; i < 400; i++) {
      conversation = (await api('GET', `/api/v1/app-conversations/${current.app_conversation_id}`)).json;
      if (conversation.execution_status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(conversation).toMatchObject({ execution_status: 'finished', metrics: { llm_calls: 1, model_name: 'openai/gpt-4o' } });
    const { items } = await eventsOf(current.app_conversation_id);
    expect(items.find((event) => event.kind === 'ActionEvent').data).toMatchObject({
      tool_name: 'finish',
      action: { kind: 'FinishAction', message: 'followed up on the deploy' },
    });
    await api('DELETE', `/api/v1/sandboxes/${current.sandbox_id}`);
  });
});
