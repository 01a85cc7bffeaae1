import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool, type JSONSchema7, type LanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmServerOptions } from './index.js';

const KEY = 'sk-test-abcdefghijklmnopqrstuvwxyz';

interface ProviderCase {
  name: string;
  api: 'openai-chat' | 'anthropic-messages';
  modelId: string;
  model(url: string, apiKey?: string): LanguageModel;
}

const providers: ProviderCase[] = [
  {
    name: '@ai-sdk/openai (chat)',
    api: 'openai-chat',
    modelId: 'gpt-4o-mini',
    model: (url, apiKey = KEY) => createOpenAI({ baseURL: `${url}/v1`, apiKey }).chat('gpt-4o-mini'),
  },
  {
    name: '@ai-sdk/openai-compatible',
    api: 'openai-chat',
    modelId: 'llama-3.3-70b',
    model: (url, apiKey = KEY) => createOpenAICompatible({ name: 'x', baseURL: `${url}/v1`, apiKey, includeUsage: true })('llama-3.3-70b'),
  },
  {
    name: '@ai-sdk/anthropic',
    api: 'anthropic-messages',
    modelId: 'claude-sonnet-4-5',
    model: (url, apiKey = KEY) => createAnthropic({ baseURL: `${url}/v1`, apiKey })('claude-sonnet-4-5'),
  },
];

const servers: FakeLlmServer[] = [];

async function start(options?: FakeLlmServerOptions): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

// Typed as JSON Schema (mutable arrays), as `jsonSchema()` takes it.
const weatherSchema: JSONSchema7 = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
  required: ['city'],
  additionalProperties: false,
};
const timeSchema: JSONSchema7 = {
  type: 'object',
  properties: { zone: { type: 'string' } },
  required: ['zone'],
  additionalProperties: false,
};

/** Tools without `execute`: the SDK stops after the model's tool calls. */
const declaredTools = {
  get_weather: tool({ description: 'Weather in a city', inputSchema: jsonSchema<{ city: string; unit?: string }>(weatherSchema) }),
  get_time: tool({ description: 'Time in a zone', inputSchema: jsonSchema<{ zone: string }>(timeSchema) }),
};

const twoCalls = {
  text: 'Let me check both.',
  toolCalls: [
    { name: 'get_weather', arguments: { city: 'Zürich — «Genève» 🌧', unit: 'c' } },
    { name: 'get_time', arguments: { zone: 'Europe/Zurich' } },
  ],
};

/** The tool names and JSON schemas a request declared, whatever the wire format. */
function declaredToolSchemas(api: ProviderCase['api'], body: any): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of body.tools ?? []) {
    if (api === 'openai-chat') out[entry.function.name] = entry.function.parameters;
    else out[entry.name] = entry.input_schema;
  }
  return out;
}

function systemOf(api: ProviderCase['api'], body: any): string {
  if (api === 'openai-chat') return body.messages.find((m: any) => m.role === 'system')?.content;
  return body.system.map((part: any) => part.text).join('');
}

function lastUserText(body: any): string {
  const user = body.messages.filter((m: any) => m.role === 'user').at(-1);
  if (typeof user.content === 'string') return user.content;
  return user.content.map((part: any) => part.text ?? '').join('');
}

for (const provider of providers) {
  describe(`fake LLM server with ${provider.name}`, () => {
    for (const mode of ['generate', 'stream'] as const) {
      const run = async (args: Parameters<typeof generateText>[0]) => {
        if (mode === 'generate') {
          const result = await generateText(args);
          return { text: result.text, usage: result.usage, toolCalls: result.toolCalls, finishReason: result.finishReason };
        }
        const errors: unknown[] = [];
        const result = streamText({ ...(args as Parameters<typeof streamText>[0]), onError: ({ error }) => void errors.push(error) });
        const [text, usage, toolCalls, finishReason] = await Promise.all([result.text, result.usage, result.toolCalls, result.finishReason]);
        expect(errors).toEqual([]);
        return { text, usage, toolCalls, finishReason };
      };

      describe(mode, () => {
        it('answers with text and reports usage, cached tokens included', async () => {
          const llm = await start({
            turns: [{ text: 'Hello there, general Kenobi!', usage: { input: 120, output: 17, cacheRead: 40, cacheWrite: 10 } }],
          });
          const result = await run({ model: provider.model(llm.url), system: 'Be brief.', prompt: 'Say hello.' });
          expect(result.text).toBe('Hello there, general Kenobi!');
          expect(result.finishReason).toBe('stop');
          expect(result.usage.inputTokens).toBe(120);
          expect(result.usage.outputTokens).toBe(17);
          expect(result.usage.totalTokens).toBe(137);
          expect(result.usage.inputTokenDetails.cacheReadTokens).toBe(40);
          if (provider.api === 'anthropic-messages') {
            expect(result.usage.inputTokenDetails.cacheWriteTokens).toBe(10);
            expect(result.usage.inputTokenDetails.noCacheTokens).toBe(70);
          } else if (provider.name === '@ai-sdk/openai (chat)') {
            expect(result.usage.inputTokenDetails.noCacheTokens).toBe(70);
          } else {
            expect(result.usage.inputTokenDetails.noCacheTokens).toBe(80);
          }

          expect(llm.requests).toHaveLength(1);
          const request = llm.requests[0]!;
          expect(request.api).toBe(provider.api);
          expect(request.path).toBe(provider.api === 'openai-chat' ? '/v1/chat/completions' : '/v1/messages');
          expect(request.stream).toBe(mode === 'stream');
          expect(request.model).toBe(provider.modelId);
          expect(request.body.model).toBe(provider.modelId);
          expect(request.apiKey).toBe(KEY);
          expect(systemOf(provider.api, request.body)).toBe('Be brief.');
          expect(lastUserText(request.body)).toBe('Say hello.');
          if (provider.api === 'openai-chat' && mode === 'stream') {
            expect(request.body.stream_options).toEqual({ include_usage: true });
          }
          if (provider.api === 'anthropic-messages') {
            expect(request.headers['anthropic-version']).toBe('2023-06-01');
          }
        });

        it('answers with two tool calls in one response', async () => {
          const llm = await start({ turns: [twoCalls] });
          const result = await run({ model: provider.model(llm.url), prompt: 'Weather and time in Zürich?', tools: declaredTools });
          expect(result.finishReason).toBe('tool-calls');
          expect(result.text).toBe('Let me check both.');
          expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
            ['get_weather', { city: 'Zürich — «Genève» 🌧', unit: 'c' }],
            ['get_time', { zone: 'Europe/Zurich' }],
          ]);
          const prefix = provider.api === 'openai-chat' ? 'call_' : 'toolu_';
          expect(result.toolCalls.map((call) => call.toolCallId)).toEqual([`${prefix}1`, `${prefix}2`]);

          const request = llm.requests[0]!;
          const schemas = declaredToolSchemas(provider.api, request.body);
          expect(Object.keys(schemas)).toEqual(['get_weather', 'get_time']);
          expect(schemas.get_weather).toMatchObject({ type: 'object', properties: weatherSchema.properties, required: ['city'] });
          expect(schemas.get_time).toMatchObject({ type: 'object', properties: timeSchema.properties, required: ['zone'] });
        });

        it('answers tool calls without text, with given ids, then a follow-up turn', async () => {
          const llm = await start({
            turns: [{ toolCalls: [{ name: 'get_time', arguments: {}, id: 'my-id-1' }] }, { text: 'It is noon.' }],
          });
          const result = await run({
            model: provider.model(llm.url),
            prompt: 'Time?',
            tools: {
              get_time: tool({ inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: async () => ({ time: '12:00' }) }),
            },
            stopWhen: stepCountIs(3),
          });
          expect(result.text).toBe('It is noon.');
          expect(llm.requests).toHaveLength(2);
          const followUp = JSON.stringify(llm.requests[1]!.body.messages);
          expect(followUp).toContain('my-id-1');
          expect(followUp).toContain('12:00');
        });
      });
    }

    it('surfaces a wrong key as a non-retryable 401 APICallError', async () => {
      const llm = await start({ apiKey: KEY });
      const error = await generateText({ model: provider.model(llm.url, 'sk-wrong-key-0123456789'), prompt: 'hi', maxRetries: 2 }).catch(
        (caught: unknown) => caught,
      );
      expect(APICallError.isInstance(error)).toBe(true);
      const apiError = error as APICallError;
      expect(apiError.statusCode).toBe(401);
      expect(apiError.isRetryable).toBe(false);
      expect(apiError.message).toBe(
        provider.api === 'openai-chat'
          ? `Incorrect API key provided: sk-wrong${'*'.repeat(11)}6789. You can find your API key at https://platform.openai.com/account/api-keys.`
          : 'invalid x-api-key',
      );
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]!.apiKey).toBe('sk-wrong-key-0123456789');
    });

    for (const status of [429, 500, ...(provider.api === 'anthropic-messages' ? [529] : [])]) {
      it(`retries a ${status} and succeeds`, async () => {
        const llm = await start({ turns: [{ error: { status, retryAfterSeconds: 0 } }, { text: 'second try' }] });
        const result = await generateText({ model: provider.model(llm.url), prompt: 'hi', maxRetries: 2 });
        expect(result.text).toBe('second try');
        expect(llm.requests).toHaveLength(2);
      });
    }

    it('retries a 429 in a stream too', async () => {
      const llm = await start({ turns: [{ error: { status: 429, retryAfterSeconds: 0 } }, { text: 'streamed' }] });
      const result = streamText({ model: provider.model(llm.url), prompt: 'hi', maxRetries: 2 });
      expect(await result.text).toBe('streamed');
      expect(llm.requests).toHaveLength(2);
    });

    it('gives up after maxRetries with the last error', async () => {
      const llm = await start({ respond: () => ({ error: { status: 500, retryAfterSeconds: 0, message: 'boom' } }) });
      const error = await generateText({ model: provider.model(llm.url), prompt: 'hi', maxRetries: 2 }).catch((caught: unknown) => caught);
      expect((error as Error).name).toBe('AI_RetryError');
      const last = (error as { lastError: unknown }).lastError as APICallError;
      expect(APICallError.isInstance(last)).toBe(true);
      expect(last.statusCode).toBe(500);
      expect(last.message).toBe('boom');
      expect(llm.requests).toHaveLength(3);
    });

    it('answers an unknown model with 404', async () => {
      const llm = await start({ models: ['some-other-model'] });
      const error = await generateText({ model: provider.model(llm.url), prompt: 'hi', maxRetries: 2 }).catch((caught: unknown) => caught);
      expect(APICallError.isInstance(error)).toBe(true);
      expect((error as APICallError).statusCode).toBe(404);
      expect((error as APICallError).isRetryable).toBe(false);
      expect((error as APICallError).message).toBe(
        provider.api === 'openai-chat' ? `The model \`${provider.modelId}\` does not exist or you do not have access to it.` : `model: ${provider.modelId}`,
      );
    });
  });
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const openAiBody = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const anthropicBody = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

describe('fake LLM server wire format', () => {
  it('listens on 127.0.0.1 with no trailing slash and serves the routes without /v1', async () => {
    const llm = await start();
    expect(llm.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const openai = await post(`${llm.url}/chat/completions`, openAiBody);
    expect(openai.status).toBe(200);
    expect(JSON.parse(openai.text).choices[0].message.content).toBe('done');
    const anthropic = await post(`${llm.url}/messages`, anthropicBody);
    expect(anthropic.status).toBe(200);
    expect(JSON.parse(anthropic.text).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(llm.requests.map((request) => request.path)).toEqual(['/chat/completions', '/messages']);
  });

  it('sends the OpenAI chat.completion object', async () => {
    const llm = await start({
      turns: [{ text: 'hi', toolCalls: [{ name: 'f', arguments: { a: 1 } }], usage: { input: 10, output: 5, cacheRead: 4 } }],
    });
    const response = await post(`${llm.url}/v1/chat/completions`, openAiBody, { authorization: 'Bearer k1' });
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(response.text);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gpt-4o-mini',
      system_fingerprint: expect.any(String),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'hi',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
            refusal: null,
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(llm.requests[0]!.apiKey).toBe('k1');
  });

  it('streams OpenAI chunks, the usage chunk only when asked for, then [DONE]', async () => {
    const llm = await start({ turns: [twoCalls, { text: 'abc' }] });
    const withUsage = await post(`${llm.url}/v1/chat/completions`, {
      ...openAiBody,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(withUsage.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = withUsage.text.split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    expect(frames.every((frame) => frame.startsWith('data: '))).toBe(true);
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice('data: '.length)));
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(twoCalls.text);
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const starts = toolDeltas.filter((delta: any) => delta.id !== undefined);
    expect(starts).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    for (const [index, call] of twoCalls.toolCalls.entries()) {
      const fragments = toolDeltas.filter((delta: any) => delta.index === index && delta.id === undefined);
      expect(fragments.length).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(fragments.map((delta: any) => delta.function.arguments).join(''))).toEqual(call.arguments);
    }
    const finish = chunks.at(-2);
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);

    const withoutUsage = await post(`${llm.url}/v1/chat/completions`, { ...openAiBody, stream: true });
    const plain = withoutUsage.text
      .split('\n\n')
      .filter(Boolean)
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.slice(6)));
    expect(plain.every((chunk) => !('usage' in chunk) && chunk.choices.length === 1)).toBe(true);
    expect(plain.at(-1).choices[0].finish_reason).toBe('stop');
  });

  it('sends the Anthropic message object, input_tokens without the cached tokens', async () => {
    const llm = await start({
      turns: [{ text: 'hi', toolCalls: [{ name: 'f', arguments: { a: 1 } }], usage: { input: 100, output: 5, cacheRead: 30, cacheWrite: 20 } }],
    });
    const response = await post(`${llm.url}/v1/messages`, anthropicBody, { 'x-api-key': 'k2' });
    expect(JSON.parse(response.text)).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 30, cache_creation_input_tokens: 20 },
    });
    expect(llm.requests[0]!.apiKey).toBe('k2');
  });

  it('streams Anthropic events', async () => {
    const llm = await start({ turns: [{ ...twoCalls, usage: { input: 100, output: 9, cacheRead: 30 } }] });
    const response = await post(`${llm.url}/v1/messages`, { ...anthropicBody, stream: true });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = response.text
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => {
        const [eventLine, dataLine] = frame.split('\n');
        expect(eventLine).toMatch(/^event: /);
        expect(dataLine).toMatch(/^data: /);
        const data = JSON.parse(dataLine!.slice('data: '.length));
        expect(data.type).toBe(eventLine!.slice('event: '.length));
        return data;
      });
    const types = events.map((event) => event.type).filter((type) => type !== 'ping');
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(events[0].message.usage).toMatchObject({ input_tokens: 70, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 });
    const starts = events.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => [event.index, event.content_block])).toEqual([
      [0, { type: 'text', text: '' }],
      [1, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }],
      [2, { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} }],
    ]);
    const deltas = (index: number) => events.filter((event) => event.type === 'content_block_delta' && event.index === index);
    expect(
      deltas(0)
        .map((event) => event.delta.text)
        .join(''),
    ).toBe(twoCalls.text);
    expect(deltas(0).every((event) => event.delta.type === 'text_delta')).toBe(true);
    for (const [n, call] of twoCalls.toolCalls.entries()) {
      const pieces = deltas(n + 1).filter((event) => event.delta.partial_json !== '');
      expect(pieces.length).toBeGreaterThanOrEqual(2);
      expect(pieces.every((event) => event.delta.type === 'input_json_delta')).toBe(true);
      expect(JSON.parse(pieces.map((event) => event.delta.partial_json).join(''))).toEqual(call.arguments);
    }
    expect(events.filter((event) => event.type === 'content_block_stop').map((event) => event.index)).toEqual([0, 1, 2]);
    expect(events.at(-2)).toMatchObject({
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 9 },
    });
  });

  it('sends the providers’ error bodies and a retry-after header', async () => {
    const llm = await start({
      apiKey: 'sk-proj-right-key',
      turns: [{ error: { status: 429, retryAfterSeconds: 7 } }, { error: { status: 429 } }, { error: { status: 529 } }, { error: { status: 500 } }],
    });
    const wrong = await post(`${llm.url}/v1/chat/completions`, openAiBody, { authorization: 'Bearer sk-abcdefghijklmnopwxyz' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toEqual({
      error: {
        message: `Incorrect API key provided: sk-abcde${'*'.repeat(11)}wxyz. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    const missing = await post(`${llm.url}/v1/chat/completions`, openAiBody);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text).error.message).toMatch(/^You didn't provide an API key/);

    const wrongAnthropic = await post(`${llm.url}/v1/messages`, anthropicBody, { 'x-api-key': 'nope' });
    expect(wrongAnthropic.status).toBe(401);
    expect(JSON.parse(wrongAnthropic.text)).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });

    const ok = { authorization: 'Bearer sk-proj-right-key' };
    const limited = await post(`${llm.url}/v1/chat/completions`, openAiBody, ok);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(JSON.parse(limited.text).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });

    const limitedAnthropic = await post(`${llm.url}/v1/messages`, anthropicBody, { 'x-api-key': 'sk-proj-right-key' });
    expect(limitedAnthropic.status).toBe(429);
    expect(limitedAnthropic.headers.get('retry-after')).toBeNull();
    expect(JSON.parse(limitedAnthropic.text).error.type).toBe('rate_limit_error');

    const overloaded = await post(`${llm.url}/v1/messages`, anthropicBody, { 'x-api-key': 'sk-proj-right-key' });
    expect(overloaded.status).toBe(529);
    expect(JSON.parse(overloaded.text).error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });

    const failed = await post(`${llm.url}/v1/messages`, { ...anthropicBody, stream: true }, { 'x-api-key': 'sk-proj-right-key' });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(failed.text).error).toEqual({ type: 'api_error', message: 'Internal server error' });
  });

  it('answers bad JSON with 400 and unknown routes with 404', async () => {
    const llm = await start();
    const badOpenAi = await post(`${llm.url}/v1/chat/completions`, '{nope');
    expect(badOpenAi.status).toBe(400);
    expect(JSON.parse(badOpenAi.text).error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    const badAnthropic = await post(`${llm.url}/v1/messages`, '{nope');
    expect(badAnthropic.status).toBe(400);
    expect(JSON.parse(badAnthropic.text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const noMaxTokens = await post(`${llm.url}/v1/messages`, { model: 'm', messages: [] });
    expect(noMaxTokens.status).toBe(400);
    expect(JSON.parse(noMaxTokens.text).error.message).toBe('max_tokens: Field required');
    const unknown = await post(`${llm.url}/v1/completions`, openAiBody);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.message).toBe('Invalid URL (POST /v1/completions)');
    const get = await fetch(`${llm.url}/v1/chat/completions`);
    expect(get.status).toBe(404);
    expect(llm.requests).toHaveLength(1);
  });

  it('takes answers from enqueue, then respond, then says "done"', async () => {
    const seen: string[] = [];
    const llm = await start({
      turns: [{ text: 'one' }],
      respond: async (request) => {
        seen.push(request.model);
        return { text: `computed for ${request.model}` };
      },
    });
    llm.enqueue({ text: 'two' }, { text: 'three' });
    const texts: string[] = [];
    for (let n = 0; n < 4; n += 1) {
      const response = await post(`${llm.url}/v1/chat/completions`, openAiBody);
      texts.push(JSON.parse(response.text).choices[0].message.content);
    }
    expect(texts).toEqual(['one', 'two', 'three', 'computed for gpt-4o-mini']);
    expect(seen).toEqual(['gpt-4o-mini']);

    const plain = await start();
    const result = await generateText({ model: providers[2]!.model(plain.url), prompt: 'hi' });
    expect(result.text).toBe('done');
  });

  it('answers a throwing respond with a 500', async () => {
    const llm = await start({
      respond: () => {
        throw new Error('script bug');
      },
    });
    const response = await post(`${llm.url}/v1/messages`, anthropicBody);
    expect(response.status).toBe(500);
    expect(JSON.parse(response.text).error).toEqual({ type: 'api_error', message: 'script bug' });
  });

  it('delays answers and survives clients that go away', async () => {
    const llm = await start({
      turns: [
        { text: 'late', delayMs: 30 },
        // Long enough that the client surely leaves while the server still waits to answer.
        { text: 'abandoned', delayMs: 500 },
      ],
    });
    const started = Date.now();
    const late = await post(`${llm.url}/v1/messages`, { ...anthropicBody, stream: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(late.text).toContain('"text":"l');

    const controller = new AbortController();
    const abandoned = fetch(`${llm.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ ...openAiBody, stream: true }),
      signal: controller.signal,
    });
    // The client goes away once the server has the request (not before it arrives, which would
    // leave its turn unused), while the server waits to answer.
    while (llm.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 40));

    const after = await post(`${llm.url}/v1/chat/completions`, openAiBody);
    expect(JSON.parse(after.text).choices[0].message.content).toBe('done');
    expect(llm.requests).toHaveLength(3);
  });

  it('closes with requests still waiting', async () => {
    const llm = await startFakeLlmServer({ turns: [{ text: 'never', delayMs: 10_000 }] });
    const pending = fetch(`${llm.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(openAiBody) });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await llm.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
    await llm.close();
  });
});
