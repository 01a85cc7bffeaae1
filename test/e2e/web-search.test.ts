/**
 * The owner's `search_api_key`, end to end through the reference server run as a user runs it,
 * with `AGENT_PLATFORM_SEARCH_BASE_URL` pointing its web search at a stand-in for Tavily's Search
 * API (which checks each request as Tavily documents it): with the key stored, the built-in agent
 * has `tavily_search`, its search reaches the stand-in with the key as a bearer token, and the
 * results reach the model and the run's stored events — the key in none of them, nor in the
 * server's log. With the key removed, the model is offered no search tool.
 */
import { createHmac } from 'node:crypto';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTavilyStandIn, type TavilyStandIn } from '../../packages/agent/test-support/tavily-stand-in.js';
import { apiClient, type ApiCall } from './support/http-api.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-web-search-key-0123456789abcdef';
const SECRET_KEY = Buffer.alloc(32, 31).toString('base64');
const LLM_KEY = 'sk-e2e-web-search-llm-key-2626';
const SEARCH_KEY = 'tvly-dev-e2e-search-key-8e4c1b7a';

/** The model: a search when it has the tool, then an answer quoting the first result's URL. */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const step = messages.filter((message) => message.role === 'assistant').length;
  const canSearch = (request.body.tools as { function: { name: string } }[] | undefined)?.some((tool) => tool.function.name === 'tavily_search');
  if (step === 0 && canSearch) return { toolCalls: [{ name: 'tavily_search', arguments: { query: 'node 22 lts end of life', max_results: 3 } }] };
  const seen = messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
  const url = /https:\/\/\S+/.exec(seen.join('\n'))?.[0];
  return { toolCalls: [{ name: 'finish', arguments: { message: url ? `See ${url}` : 'I could not search.' } }] };
}

describe('web search with the owner’s search_api_key', () => {
  let llm: FakeLlmServer;
  let tavily: TavilyStandIn;
  let server: RunningServer;
  let api: ApiCall;
  let webhookSecret: string;
  let automationId: string;

  const settings = (searchApiKey: string) =>
    api('POST', '/api/settings', { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1`, search_api_key: searchApiKey });
  let asked = 0;
  const send = async () => {
    // A new body each time: the same body again would be taken for a redelivery.
    const body = JSON.stringify({ type: 'question.asked', question: ++asked });
    const response = await fetch(`${server.baseUrl}/api/automation/v1/events/acme/questions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature-256': `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}` },
    });
    expect(response.status).toBe(200);
  };
  /** The automation's run that is not one of `seen`, once it is final. */
  const finishedRun = async (seen: string[] = []) => {
    let runs: any[] = [];
    for (let i = 0; i < 800; i++) {
      runs = (await api('GET', `/api/automation/v1/${automationId}/runs`)).json.runs;
      const run = runs.find((one) => !seen.includes(one.id));
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the run did not finish: ${JSON.stringify(runs)}\n${server.output.join('').slice(-3000)}`);
  };
  /** The agent's final answer: its finish action's message. */
  const answerOf = (items: any[]) => items.find((event) => event.kind === 'ActionEvent' && event.data.tool_name === 'finish')?.data.action.message;
  const eventsOf = async (conversationId: string) => {
    const response = await fetch(`${server.baseUrl}/api/v1/app-conversations/${conversationId}/events?limit=100`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const text = await response.text();
    return { text, items: (JSON.parse(text) as { items: any[] }).items };
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    tavily = await startTavilyStandIn({
      apiKey: SEARCH_KEY,
      reply: () => ({
        results: [
          { title: 'Node.js release schedule', url: 'https://nodejs.org/en/about/previous-releases', content: 'Node 22 is LTS until April 2027.', score: 0.93 },
          { title: 'endoflife.date: Node.js', url: 'https://endoflife.date/nodejs', content: 'Node.js 22 ends on 2027-04-30.', score: 0.88 },
        ],
      }),
    });
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_SEARCH_BASE_URL: `${tavily.url}/`,
    });
    api = apiClient(server.baseUrl, KEY);
    webhookSecret = (await api('POST', '/api/automation/v1/webhooks', { name: 'Questions', source: 'questions' })).json.webhook_secret;
    const automation = await api('POST', '/api/automation/v1', {
      name: 'answer questions',
      trigger: { type: 'event', source: 'questions', on: 'question.asked' },
      instructions: 'When does Node 22 reach its end of life?',
    });
    expect(automation.status).toBe(201);
    automationId = automation.json.id;
  }, 90_000);

  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
    await tavily?.close();
    const logs = server?.output.join('') ?? '';
    expect(logs).not.toContain(SEARCH_KEY);
    expect(logs).not.toContain(LLM_KEY);
  }, 60_000);

  it('searches through the configured base URL with the key, and the model reads the results; the key is in no stored event', async () => {
    expect((await settings(SEARCH_KEY)).status).toBe(200);
    expect((await api('GET', '/api/settings')).json).toMatchObject({ search_api_key: null, search_api_key_set: true });
    await send();
    const run = await finishedRun();
    expect(run.status).toBe('COMPLETED');

    expect(tavily.searches).toHaveLength(1);
    expect(tavily.searches[0]).toMatchObject({ method: 'POST', path: '/search', body: { query: 'node 22 lts end of life', max_results: 3 } });
    expect(tavily.searches[0]!.headers.authorization).toBe(`Bearer ${SEARCH_KEY}`);
    expect(tavily.violations).toEqual([]);

    const { text, items } = await eventsOf(run.conversation_id);
    expect(answerOf(items)).toBe('See https://nodejs.org/en/about/previous-releases');
    const observation = items.find((event) => event.kind === 'ObservationEvent' && event.data.tool_name === 'tavily_search');
    expect(JSON.stringify(observation.data.observation.content)).toContain('Node 22 is LTS until April 2027.');
    expect(text).not.toContain(SEARCH_KEY);
    expect(JSON.stringify(llm.requests.map((request) => request.body))).not.toContain(SEARCH_KEY);
  });

  it('without the key, the model is offered no search tool', async () => {
    const before = (await api('GET', `/api/automation/v1/${automationId}/runs`)).json.runs.map((one: { id: string }) => one.id);
    expect((await settings('')).status).toBe(200);
    expect((await api('GET', '/api/settings')).json.search_api_key_set).toBe(false);
    const searches = tavily.searches.length;
    await send();
    const run = await finishedRun(before);
    expect(run.status).toBe('COMPLETED');
    expect(answerOf((await eventsOf(run.conversation_id)).items)).toBe('I could not search.');
    expect(llm.requests.at(-1)!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).not.toContain('tavily_search');
    expect(tavily.searches).toHaveLength(searches);
  });
});
