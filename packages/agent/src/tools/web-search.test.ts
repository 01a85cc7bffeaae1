/**
 * The web-search tool (`tavily_search`, from the owner's `search_api_key`) against a stand-in for
 * Tavily's Search API on loopback that checks each request as Tavily documents it: through the
 * built-in agent driven by the scripted model (offered only with the key, results bounded, a
 * refusal reaching the model with its reason, the key in no event), and alone for each way the
 * service can fail.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness, toolResultsSeen } from '../../test-support/agent-harness.js';
import { startTavilyStandIn, type TavilyResult, type TavilyStandIn } from '../../test-support/tavily-stand-in.js';
import type { ToolContext } from './tool.js';
import { webSearchTool } from './web-search.js';

const SEARCH_KEY = 'tvly-dev-harness-search-key-5e1f9a';

const harness = new AgentHarness();
let tavily: TavilyStandIn;
beforeAll(async () => {
  await harness.startLlm();
  tavily = await startTavilyStandIn({ apiKey: SEARCH_KEY });
});
afterEach(() => {
  expect(tavily.violations).toEqual([]);
  tavily.searches.length = 0;
});
afterAll(async () => {
  await harness.close();
  await tavily.close();
});

const results = (count: number, contentLength = 300): TavilyResult[] =>
  Array.from({ length: count }, (_, index) => ({
    title: `Result ${index + 1}`,
    url: `https://docs.example.com/page-${index + 1}`,
    content: `Page ${index + 1}: ${'lorem ipsum '.repeat(Math.ceil(contentLength / 12))}`.slice(0, contentLength),
    score: 0.9 - index / 100,
  }));

const toolNames = (body: any): string[] => body.tools.map((tool: any) => tool.function.name);
const systemPromptOf = (body: any): string => String(body.messages[0].content);

describe('the built-in agent with search_api_key', () => {
  it('offers tavily_search only when the key is set', async () => {
    await harness.startLlm({ turns: [{ text: 'nothing to search' }] });
    await harness.run({});
    expect(toolNames(harness.llm.requests[0]!.body)).not.toContain('tavily_search');
    expect(systemPromptOf(harness.llm.requests[0]!.body)).not.toContain('tavily_search');

    await harness.startLlm({ turns: [{ text: 'nothing to search' }] });
    await harness.run({ settings: harness.settings({ searchApiKey: SEARCH_KEY }) }, { webSearch: { baseUrl: tavily.url } });
    const body = harness.llm.requests[0]!.body;
    expect(toolNames(body)).toContain('tavily_search');
    const tool = body.tools.find((entry: any) => entry.function.name === 'tavily_search').function;
    expect(tool.parameters.required).toEqual(['query']);
    expect(Object.keys(tool.parameters.properties)).toEqual(
      expect.arrayContaining(['query', 'max_results', 'search_depth', 'topic', 'time_range', 'include_domains', 'exclude_domains']),
    );
    expect(systemPromptOf(body)).toContain('search the web with tavily_search');
    expect(tavily.searches).toEqual([]);
  });

  it('searches Tavily as Tavily documents it, and the model reads the results, bounded, with the cut said; the key is in no event', async () => {
    tavily.reply = () => ({ answer: 'Use the `pool` option.', results: results(20, 1500) });
    await harness.startLlm({
      turns: [
        {
          toolCalls: [
            {
              name: 'tavily_search',
              arguments: { query: 'vitest pool option forks threads', max_results: 8, search_depth: 'advanced', include_domains: ['vitest.dev'] },
            },
          ],
        },
        { text: 'Found it.' },
      ],
    });
    const { records, events, outcome } = await harness.run(
      { settings: harness.settings({ searchApiKey: SEARCH_KEY }) },
      { webSearch: { baseUrl: `${tavily.url}/`, maxCharacters: 4000 } },
    );
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'Found it.' });

    // One request, as Tavily's API reference has it.
    expect(tavily.searches).toHaveLength(1);
    const [search] = tavily.searches;
    expect(search).toMatchObject({ method: 'POST', path: '/search' });
    expect(search!.headers.authorization).toBe(`Bearer ${SEARCH_KEY}`);
    expect(search!.headers['content-type']).toMatch(/^application\/json/);
    expect(search!.body).toEqual({
      query: 'vitest pool option forks threads',
      max_results: 8,
      search_depth: 'advanced',
      topic: 'general',
      include_domains: ['vitest.dev'],
      include_answer: false,
      include_raw_content: false,
      include_images: false,
    });

    // The model reads at most 8 of the 20 results, within 4,000 characters, and is told what was cut.
    const seen = toolResultsSeen(harness.llm.requests[1]!.body)[0]!;
    expect(seen).toContain('Web search for "vitest pool option forks threads": 8 results.');
    expect(seen).toContain('Answer: Use the `pool` option.');
    expect(seen).toContain('1. Result 1\n   https://docs.example.com/page-1\n   Page 1: lorem ipsum');
    expect(seen).not.toContain('Result 9');
    expect(seen).toMatch(/\[\d more results cut: the search output is limited to 4000 characters\. Search more narrowly to see them\.\]$/);
    expect(seen.length).toBeLessThan(4000 + 200);
    expect(seen).toContain('characters cut]');

    // The action and its observation, as OpenHands shows an MCP tool's; no event holds the key.
    const action = records.find((entry) => entry.event.kind === 'ActionEvent')!.event;
    expect(action).toMatchObject({
      message: 'web search: "vitest pool option forks threads"',
      data: { tool_name: 'tavily_search', action: { kind: 'MCPToolAction' } },
    });
    const observation = records.find((entry) => entry.event.kind === 'ObservationEvent')!.event;
    expect(observation.data).toMatchObject({ tool_name: 'tavily_search', observation: { kind: 'MCPToolObservation', is_error: false } });
    expect(JSON.stringify(events)).not.toContain(SEARCH_KEY);
    expect(JSON.stringify(harness.llm.requests.map((request) => request.body))).not.toContain(SEARCH_KEY);
  });

  it("a key Tavily refuses reaches the model as an error with Tavily's reason; the run goes on", async () => {
    await harness.startLlm({
      turns: [{ toolCalls: [{ name: 'tavily_search', arguments: { query: 'node 22 release date' } }] }, { text: 'Search is not available.' }],
    });
    const wrongKey = 'tvly-dev-wrong-key-000000000';
    const { records, events, outcome } = await harness.run({ settings: harness.settings({ searchApiKey: wrongKey }) }, { webSearch: { baseUrl: tavily.url } });
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'Search is not available.' });
    expect(tavily.searches[0]!.headers.authorization).toBe(`Bearer ${wrongKey}`);
    const seen = toolResultsSeen(harness.llm.requests[1]!.body)[0]!;
    expect(seen).toContain(
      'web search failed: the search service rejected the API key (HTTP 401): Unauthorized: missing or invalid API key. Check search_api_key in the settings.',
    );
    const observation = records.find((entry) => entry.event.kind === 'ObservationEvent')!.event;
    expect(observation.data).toMatchObject({ observation: { is_error: true } });
    expect(JSON.stringify(events)).not.toContain(wrongKey);
  });

  it('a stop while a search waits ends the run CANCELLED', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    tavily.reply = async () => {
      await held;
      return { results: [] };
    };
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'tavily_search', arguments: { query: 'slow' } }] }, { text: 'unreachable' }] });
    const controller = new AbortController();
    const { outcome } = await harness.run(
      { settings: harness.settings({ searchApiKey: SEARCH_KEY }), signal: controller.signal },
      { webSearch: { baseUrl: tavily.url } },
      (event) => {
        if (event.type === 'record' && event.event.kind === 'ActionEvent') controller.abort();
      },
    );
    release();
    expect(outcome).toMatchObject({ status: 'CANCELLED' });
  });
});

describe('tavily_search when the service fails', () => {
  const context = (signal = new AbortController().signal) => ({ signal }) as ToolContext;
  const search = async (options: Parameters<typeof webSearchTool>[1] = {}, key = SEARCH_KEY) => {
    const prepared = webSearchTool(key, { baseUrl: tavily.url, ...options }).prepare({ query: 'what changed in TypeScript 5.9' });
    if (!prepared.ok) throw new Error(prepared.error);
    return prepared.run(context());
  };

  it('429: rate-limited, with when to try again from Retry-After', async () => {
    tavily.reply = () => ({
      status: 429,
      body: { detail: { error: 'Your request has been blocked due to excessive requests.' } },
      headers: { 'retry-after': '17' },
    });
    expect(await search()).toMatchObject({
      isError: true,
      text: 'web search failed: the search service is rate-limiting (HTTP 429): Your request has been blocked due to excessive requests. Try again in 17 s.',
    });
  });

  it("432: the plan's limit, in Tavily's words", async () => {
    tavily.reply = () => ({ status: 432, body: { detail: { error: "This request exceeds your plan's set usage limit." } } });
    expect((await search()).text).toBe(
      "web search failed: the search plan's usage limit is reached (HTTP 432): This request exceeds your plan's set usage limit.",
    );
  });

  it('5xx: the service failed, with its status', async () => {
    tavily.reply = () => ({ status: 502, body: '<html>Bad Gateway</html>' });
    expect(await search()).toMatchObject({ isError: true, text: 'web search failed: the search service failed (HTTP 502). Try again later.' });
  });

  it('an answer that is not JSON, or not Tavily’s', async () => {
    tavily.reply = () => ({ status: 200, body: '<html>captive portal</html>' });
    expect((await search()).text).toBe("web search failed: the search service's answer is not JSON (HTTP 200, text/plain)");
    tavily.reply = () => ({ status: 200, body: { hits: [] } });
    expect((await search()).text).toBe("web search failed: the search service's answer is not Tavily's search response (it has no `results` list)");
  });

  it('no answer within the time limit', async () => {
    tavily.reply = () => new Promise(() => {});
    expect(await search({ timeoutMs: 300 })).toMatchObject({ isError: true, text: 'web search failed: the search service did not answer within 300 ms' });
  });

  it('a service that cannot be reached', async () => {
    // A port nothing listens on: one that was free a moment ago.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await search({ baseUrl: `http://127.0.0.1:${port}` });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toMatch(/^web search failed: the search service could not be reached \(ECONNREFUSED\)$/);
  });

  it('a message that echoes the key is told without it', async () => {
    tavily.reply = () => ({ status: 400, body: { detail: { error: `bad request for key ${SEARCH_KEY}` } } });
    const result = await search();
    expect(result.text).toBe('web search failed: the search service refused the search (HTTP 400): bad request for key [redacted].');
  });

  it('bad arguments are refused before any request', () => {
    const prepared = webSearchTool(SEARCH_KEY, { baseUrl: tavily.url }).prepare({ query: '', max_results: 50 });
    expect(prepared).toMatchObject({ ok: false });
    expect(!prepared.ok && prepared.error).toMatch(/^invalid arguments: query: .*; max_results: /);
    expect(tavily.searches).toEqual([]);
  });
});
