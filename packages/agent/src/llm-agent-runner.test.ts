import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness, LLM_KEY, toolResultsSeen } from '../test-support/agent-harness.js';

const harness = new AgentHarness();
beforeAll(async () => {
  await harness.startLlm();
});
afterAll(() => harness.close());

const kinds = (records: { event: { kind: string } }[]) => records.map((entry) => entry.event.kind);

describe('the built-in agent', () => {
  it('runs commands and edits a file in the sandbox, then finishes with its summary, cost and OpenHands events', async () => {
    await harness.startLlm({
      apiKey: LLM_KEY,
      turns: [
        {
          text: 'Let me look around.',
          toolCalls: [{ name: 'terminal', arguments: { command: 'printf "hello\\nworld\\n" > notes.txt && ls' } }],
          usage: { input: 1000, output: 50 },
        },
        {
          toolCalls: [{ name: 'file_editor', arguments: { command: 'str_replace', path: 'notes.txt', old_str: 'world', new_str: 'agents' } }],
          usage: { input: 1200, output: 40 },
        },
        { toolCalls: [{ name: 'file_editor', arguments: { command: 'view', path: 'notes.txt' } }], usage: { input: 1300, output: 20 } },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Greeted the agents.' } }], usage: { input: 1400, output: 10 } },
      ],
    });
    const { records, outcome, events } = await harness.run({ instructions: 'Greet the agents in notes.txt' });
    expect(outcome).toMatchObject({ status: 'COMPLETED', reason: null, finalResponse: 'Greeted the agents.' });
    expect(kinds(records)).toEqual([
      'ActionEvent',
      'ObservationEvent',
      'ActionEvent',
      'ObservationEvent',
      'ActionEvent',
      'ObservationEvent',
      'ActionEvent',
      'ObservationEvent',
    ]);

    const [firstAction, firstObservation] = records;
    expect(firstAction!.event).toMatchObject({
      source: 'agent',
      message: '$ printf "hello\\nworld\\n" > notes.txt && ls',
      data: {
        thought: [{ type: 'text', text: 'Let me look around.' }],
        action: { kind: 'TerminalAction', command: 'printf "hello\\nworld\\n" > notes.txt && ls' },
        tool_name: 'terminal',
        tool_call: { type: 'function', function: { name: 'terminal' } },
        security_risk: 'UNKNOWN',
      },
    });
    expect(firstObservation!.event).toMatchObject({
      source: 'environment',
      data: { tool_name: 'terminal', action_id: firstAction!.id, observation: { kind: 'TerminalObservation', exit_code: 0, is_error: false } },
    });
    expect((firstObservation!.event.data as any).tool_call_id).toBe((firstAction!.event.data as any).tool_call_id);
    // The view after the edit shows the changed file with line numbers.
    const view = records[5]!.event.data as any;
    expect(view.observation.content[0].text).toContain('     1\thello\n     2\tagents');

    // Four model calls: gpt-4o's price table applies (input $2.50/M, output $10/M).
    expect(outcome.metrics).toMatchObject({
      model_name: 'openai/gpt-4o',
      llm_calls: 4,
      cost_known: true,
      accumulated_token_usage: { prompt_tokens: 4900, completion_tokens: 120 },
    });
    expect(outcome.metrics!.accumulated_cost).toBeCloseTo((4900 * 2.5 + 120 * 10) / 1e6, 6);
    expect(events.filter((event) => event.type === 'metrics')).toHaveLength(4);

    // The model saw its tool results, and was called with the tools and the key.
    const requests = harness.llm.requests;
    expect(requests).toHaveLength(4);
    expect(requests[0]!.apiKey).toBe(LLM_KEY);
    expect(requests[0]!.model).toBe('gpt-4o');
    expect(requests[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['terminal', 'file_editor', 'think', 'finish']);
    expect(toolResultsSeen(requests[1]!.body)[0]).toContain('notes.txt');
    expect(toolResultsSeen(requests[2]!.body)[1]).toContain('Edited notes.txt');
  });

  it('speaks the Anthropic Messages API for anthropic/ models, streaming, with llm_base_url', async () => {
    await harness.startLlm({
      turns: [
        {
          text: 'Checking.',
          toolCalls: [{ name: 'terminal', arguments: { command: 'echo from-anthropic' } }],
          usage: { input: 500, output: 30, cacheRead: 200 },
        },
        { text: 'All done: the echo worked.' },
      ],
    });
    const { records, outcome } = await harness.run({ settings: harness.settings({ llmModel: 'anthropic/claude-sonnet-4-5', llmBaseUrl: harness.llm.url }) });
    expect(harness.llm.requests.map((request) => request.api)).toEqual(['anthropic-messages', 'anthropic-messages']);
    expect(harness.llm.requests[0]!.stream).toBe(true);
    expect(harness.llm.requests[0]!.model).toBe('claude-sonnet-4-5');
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'All done: the echo worked.' });
    expect((records[1]!.event.data as any).observation.content[0].text).toContain('from-anthropic');
    // An answer without a tool call is the agent's last message.
    expect(records.at(-1)!.event).toMatchObject({ kind: 'MessageEvent', source: 'agent', data: { llm_message: { role: 'assistant' } } });
    expect(outcome.metrics!.accumulated_token_usage.cache_read_tokens).toBe(200);
    expect(outcome.metrics!.accumulated_cost).toBeGreaterThan(0);
  });

  it('stops FAILED at max_iterations', async () => {
    await harness.startLlm({ respond: () => ({ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] }) });
    const { outcome } = await harness.run({ settings: harness.settings({ maxIterations: 3 }) });
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'max iterations reached (3)' });
    expect(harness.llm.requests).toHaveLength(3);
  });

  it('stops FAILED when the budget is spent, with the cost recorded', async () => {
    await harness.startLlm({ respond: () => ({ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }], usage: { input: 20_000, output: 1000 } }) });
    // Each call costs 20,000 × $2.50/M + 1,000 × $10/M = $0.06; the budget holds one and a half.
    const { outcome } = await harness.run({ settings: harness.settings({ maxBudgetPerTask: 0.09 }) });
    expect(outcome.status).toBe('FAILED');
    expect(outcome.reason).toMatch(/^budget exceeded: \$0\.1200 spent of max_budget_per_task \$0\.09$/);
    expect(outcome.metrics).toMatchObject({ llm_calls: 2, max_budget_per_task: 0.09 });
    expect(harness.llm.requests).toHaveLength(2);
  });

  it('a provider 401 fails the run with a clear reason that never holds the key', async () => {
    await harness.startLlm({ apiKey: 'sk-the-right-key-000000000' });
    const { outcome } = await harness.run({});
    expect(outcome.status).toBe('FAILED');
    expect(outcome.reason).toBe('the LLM provider rejected the API key for openai/gpt-4o (HTTP 401): check llm_api_key');
    expect(JSON.stringify(outcome)).not.toContain(LLM_KEY.slice(-4));
    // Not retried: a wrong key stays wrong.
    expect(harness.llm.requests).toHaveLength(1);
  });

  it("an unknown model is a 404 with the provider's words", async () => {
    await harness.startLlm({ models: ['gpt-4o-mini'] });
    const { outcome } = await harness.run({});
    expect(outcome.status).toBe('FAILED');
    expect(outcome.reason).toContain('does not know the model openai/gpt-4o (HTTP 404)');
  });

  it('retries 429 and 5xx with backoff, then goes on', async () => {
    await harness.startLlm({
      turns: [{ error: { status: 429, retryAfterSeconds: 0 } }, { error: { status: 500, retryAfterSeconds: 0 } }, { text: 'done after retries' }],
    });
    const { outcome } = await harness.run({});
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'done after retries' });
    expect(harness.llm.requests).toHaveLength(3);
  });

  it('gives up after the retries with the status in the reason', async () => {
    await harness.startLlm({ respond: () => ({ error: { status: 503, retryAfterSeconds: 0 } }) });
    const { outcome } = await harness.run({}, { maxRetries: 1 });
    expect(outcome).toMatchObject({ status: 'FAILED' });
    expect(outcome.reason).toMatch(/^the LLM provider failed \(HTTP 503\) after 2 attempts/);
  });

  it('an unknown tool or bad arguments become AgentErrorEvents the model sees, and it goes on', async () => {
    await harness.startLlm({
      turns: [
        {
          toolCalls: [
            { name: 'browse', arguments: { url: 'x' } },
            { name: 'file_editor', arguments: { command: 'explode', path: 'x' } },
          ],
        },
        { text: 'ok' },
      ],
    });
    const { records, outcome } = await harness.run({});
    expect(outcome.status).toBe('COMPLETED');
    expect(kinds(records)).toEqual(['ActionEvent', 'AgentErrorEvent', 'ActionEvent', 'AgentErrorEvent', 'MessageEvent']);
    expect((records[1]!.event.data as any).error).toContain('There is no tool named "browse"');
    expect((records[3]!.event.data as any).error).toMatch(/^invalid arguments: command:/);
    // One assistant message with both calls, then both results, in the next request.
    const seen = toolResultsSeen(harness.llm.requests[1]!.body);
    expect(seen).toHaveLength(2);
  });

  it('runs commands with the custom secrets, git identity and tokens in the environment, never the LLM key; secrets are scrubbed before the model sees them', async () => {
    const rot13 = (text: string) =>
      text.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c === c.toLowerCase() ? 97 : 65)));
    await harness.startLlm({
      turns: [
        // rot13, so that a scrubber cannot hide what is there: the key would show up transformed.
        { toolCalls: [{ name: 'terminal', arguments: { command: "env | tr 'A-Za-z' 'N-ZA-Mn-za-m'" } }] },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo "token is $DEPLOY_TOKEN"' } }] },
        { text: 'done' },
      ],
    });
    const settings = harness.settings({
      customSecrets: { DEPLOY_TOKEN: 'deploy-secret-value-7' },
      gitUserName: 'Alice Agent',
      providerTokens: { github: { token: 'ghp_harness_token_99', host: null }, slack: { token: 'xoxb-harness-slack-42', host: null } },
    });
    const { records } = await harness.run({ settings });
    const envSeen = toolResultsSeen(harness.llm.requests[1]!.body)[0]!;
    expect(envSeen).toContain(rot13('DEPLOY_TOKEN=deploy-secret-value-7'));
    expect(envSeen).toContain(rot13('GIT_AUTHOR_NAME=Alice Agent'));
    expect(envSeen).toContain(rot13('GITHUB_TOKEN=ghp_harness_token_99'));
    // A chat's token (Slack's) is not a git host's: it stays out of the sandbox.
    expect(envSeen).not.toContain(rot13('SLACK_TOKEN'));
    expect(envSeen).not.toContain(rot13('xoxb-harness-slack-42'));
    expect(envSeen).not.toContain(rot13(LLM_KEY));
    expect(envSeen).not.toContain(rot13('LLM_API_KEY'));
    const echoSeen = toolResultsSeen(harness.llm.requests[2]!.body).at(-1)!;
    expect(echoSeen).toContain('token is [redacted]');
    expect(JSON.stringify(records)).not.toContain('deploy-secret-value-7');
  });

  it('stops CANCELLED when its signal aborts, killing the command under way', async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 30' } }] }] });
    const controller = new AbortController();
    const began = Date.now();
    const { outcome } = await harness.run({ signal: controller.signal }, {}, (event) => {
      if (event.type === 'record' && event.event.kind === 'ActionEvent') setTimeout(() => controller.abort(), 100);
    });
    expect(outcome).toMatchObject({ status: 'CANCELLED', reason: 'cancelled' });
    expect(Date.now() - began).toBeLessThan(10_000);
  });

  it("ends TIMED_OUT at the run's time limit", async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 30' } }] }] });
    const { outcome } = await harness.run({ timeoutMs: 500 });
    expect(outcome.status).toBe('TIMED_OUT');
  });

  it('in confirmation mode asks before each action: a rejection is recorded and the model told', async () => {
    await harness.startLlm({
      turns: [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf important' } }] },
        { toolCalls: [{ name: 'think', arguments: { thought: 'better not' } }] },
        { text: 'understood' },
      ],
    });
    const asked: string[] = [];
    const { records } = await harness.run({
      settings: harness.settings({ confirmationMode: true }),
      confirm: async (action) => {
        asked.push(action.toolName);
        return { accept: false, reason: 'too dangerous' };
      },
    });
    // Only the terminal asks: think changes nothing.
    expect(asked).toEqual(['terminal']);
    expect(records[1]!.event).toMatchObject({
      kind: 'UserRejectObservation',
      source: 'user',
      data: { rejection_reason: 'too dangerous', action_id: records[0]!.id },
    });
    expect(toolResultsSeen(harness.llm.requests[1]!.body)[0]).toContain('too dangerous');
  });

  it('condenses older history into a summary when it grows past the limit', async () => {
    let call = 0;
    await harness.startLlm({
      respond: (request) => {
        if (String(request.body.messages[0]?.content).includes('summarise the earlier part')) return { text: 'SUMMARY: listed files five times.' };
        call++;
        return call <= 6 ? { toolCalls: [{ name: 'terminal', arguments: { command: `echo step ${call}` } }] } : { text: 'finished' };
      },
    });
    const { records, outcome } = await harness.run({}, { condenser: { maxEvents: 8 } });
    expect(outcome.status).toBe('COMPLETED');
    const condensation = records.find((entry) => entry.event.kind === 'Condensation');
    expect(condensation?.event.data).toMatchObject({ summary: 'SUMMARY: listed files five times.', summary_offset: 1 });
    // The next request carries the first message and the summary, not the forgotten steps.
    const after = harness.llm.requests.find((request, index) => index > 0 && JSON.stringify(request.body).includes('SUMMARY: listed'))!;
    const text = JSON.stringify(after.body.messages);
    expect(text).toContain('Do the task.');
    expect(text).not.toContain('echo step 1');
  });

  it('fails at once, with a clear reason, for a model it cannot route', async () => {
    const { outcome } = await harness.run({ settings: harness.settings({ llmModel: 'mystery-model', llmBaseUrl: null }) });
    expect(outcome.status).toBe('FAILED');
    expect(outcome.reason).toContain('cannot tell which provider serves "mystery-model"');
  });
});
