/**
 * The `agent` setting end to end, through the reference server run as a user runs it, on the
 * process runtime and on Docker: the names it offers (`GET /api/options/agents`), a 422 listing
 * them for a name it does not know, and an owner whose `agent` is `read-only` getting the
 * read-only agent — its model offered only tools that read, its reads answered from the
 * sandbox, its attempt at the terminal refused. Without an `llm_model` the read-only agent
 * fails the run with the reason rather than run another agent in its place.
 */
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiCall } from './support/http-api.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { serverRuntimes } from './support/runtimes.js';

const KEY = 'e2e-read-only-agent-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 17).toString('base64');
const LLM_KEY = 'sk-e2e-read-only-llm-key-5151515151';

const call = (name: string, args: Record<string, unknown>): FakeLlmTurn => ({ toolCalls: [{ name, arguments: args }], usage: { input: 1000, output: 50 } });

/** The model's script, by how many steps it has taken: a read, a write it does not have, the end. */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const step = (request.body.messages as { role: string }[]).filter((message) => message.role === 'assistant').length;
  return (
    [
      call('grep', { pattern: '^root:', path: '/etc/passwd' }),
      call('terminal', { command: 'touch written-by-the-read-only-agent' }),
      call('finish', { message: 'root is there' }),
    ][step] ?? { text: 'done' }
  );
}

const toolNames = (request: RecordedLlmRequest): string[] => (request.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);

const runtimes = await serverRuntimes('the read-only agent on docker');

describe.each(runtimes)('agents by name on the $name runtime', ({ env }) => {
  let server: RunningServer;
  let llm: FakeLlmServer;
  const api: ApiCall = (method, route, body) => apiClient(server.baseUrl, KEY)(method, route, body);

  const runOf = async (instructions: string) => {
    const automation = (await api('POST', '/api/automation/v1', { name: instructions, trigger: { type: 'event', source: 'ci', on: 'x' }, instructions })).json;
    expect((await api('POST', `/api/automation/v1/${automation.id}/dispatch`, {})).status).toBe(201);
    let run: any;
    for (let i = 0; i < 1200; i++) {
      run = (await api('GET', `/api/automation/v1/${automation.id}/runs`)).json.runs[0];
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the run did not finish: ${JSON.stringify(run)}`);
  };
  const eventsOf = async (conversationId: string): Promise<any[]> =>
    (await api('GET', `/api/v1/app-conversations/${conversationId}/events?limit=100`)).json.items;

  beforeAll(async () => {
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    server = await startServer('examples/server', { ...env, AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`, AGENT_PLATFORM_SECRET_KEY: SECRET_KEY });
  }, 120_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
  }, 60_000);

  it('lists the agents, and refuses a name it does not know with the list', async () => {
    expect(await api('GET', '/api/options/agents')).toEqual({ status: 200, json: ['coding', 'read-only', 'command'] });
    const refused = await api('POST', '/api/settings', { agent: 'nope' });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      {
        loc: ['body', 'agent'],
        msg: 'unknown agent "nope": the agents here are coding, read-only, command (GET /api/options/agents lists them)',
        type: 'enum',
      },
    ]);
  });

  it('an owner with agent read-only gets the read-only agent: only tools that read, its reads answered, the terminal refused', async () => {
    const stored = await api('POST', '/api/settings', { agent: 'read-only', llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1` });
    expect(stored.status).toBe(200);
    const before = llm.requests.length;
    const run = await runOf('Look for root in /etc/passwd');
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null, metrics: { llm_calls: 3 } });

    const requests = llm.requests.slice(before);
    const offered = toolNames(requests[0]!);
    expect(offered.slice(0, 5)).toEqual(['view', 'grep', 'glob', 'think', 'finish']);
    for (const writer of ['terminal', 'file_editor', 'create_automation', 'update_automation', 'disable_automation']) expect(offered).not.toContain(writer);

    const events = await eventsOf(run.conversation_id);
    expect(events.find((event) => event.data?.type === 'agent_selected')?.data).toMatchObject({
      agent: 'read-only',
      reason: `the owner's agent setting names "read-only"; the owner's llm_model is openai/gpt-4o`,
    });
    const observation = events.find((event) => event.kind === 'ObservationEvent')!.data.observation;
    expect(observation).toMatchObject({ kind: 'GrepObservation', is_error: false });
    expect(observation.content[0].text).toMatch(/^\/etc\/passwd:1:root:/);
    const refusal = events.find((event) => event.kind === 'AgentErrorEvent');
    expect(refusal.data.error).toContain('There is no tool named "terminal"');
  });

  it('without an llm_model, read-only fails the run with the reason; no other agent runs in its place', async () => {
    expect((await api('POST', '/api/settings', { agent: 'ReadOnlyAgent', llm_model: '' })).status).toBe(200);
    const before = llm.requests.length;
    const run = await runOf('Read something');
    expect(run).toMatchObject({
      status: 'FAILED',
      error_detail: `the read-only agent cannot run: the owner's agent setting names "ReadOnlyAgent", which needs an llm_model: set llm_model in the settings`,
    });
    expect(llm.requests.length).toBe(before);
    const events = await eventsOf(run.conversation_id);
    expect(events.find((event) => event.data?.type === 'agent_selected')?.data).toMatchObject({ agent: 'read-only' });
  });
});
