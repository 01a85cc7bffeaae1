/**
 * The OpenAI Chat Completions wire format (`POST /v1/chat/completions`): answers, stream chunks
 * and error bodies as api.openai.com sends them.
 * @module
 */
import { jsonFragments, randomId, textDeltas, unixSeconds } from './pieces.js';
import type { ResolvedAnswer } from './types.js';

/** An error answer: status, JSON body and extra headers. */
export interface WireError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const systemFingerprint = 'fp_fakellm01';

export interface OpenAiAnswerContext {
  id: string;
  created: number;
  model: string;
}

export function newOpenAiContext(model: string): OpenAiAnswerContext {
  return { id: `chatcmpl-${randomId(29)}`, created: unixSeconds(), model };
}

function usageBody(usage: ResolvedAnswer['usage']) {
  const promptTokensDetails: Record<string, number> = { cached_tokens: usage.cacheRead, audio_tokens: 0 };
  // OpenAI reports no cache writes; the field is sent only when a script asks for it, and the
  // `@ai-sdk/openai` provider reads it.
  if (usage.cacheWrite > 0) promptTokensDetails.cache_write_tokens = usage.cacheWrite;
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: promptTokensDetails,
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function finishReason(answer: ResolvedAnswer): 'tool_calls' | 'stop' {
  return answer.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** The `chat.completion` object of a non-streamed answer. */
export function openAiCompletion(answer: ResolvedAnswer, ctx: OpenAiAnswerContext): unknown {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.text.length > 0 ? answer.text : null,
  };
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
  }
  message.refusal = null;
  message.annotations = [];
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer) }],
    usage: usageBody(answer.usage),
    service_tier: 'default',
    system_fingerprint: systemFingerprint,
  };
}

/**
 * The `chat.completion.chunk` objects of a streamed answer, in order (each is sent as
 * `data: <json>\n\n`, followed by `data: [DONE]\n\n`). With `includeUsage`
 * (`stream_options.include_usage`), every chunk carries `usage: null` and a last chunk with no
 * choices carries the usage, as OpenAI does.
 */
export function openAiChunks(answer: ResolvedAnswer, ctx: OpenAiAnswerContext, includeUsage: boolean): unknown[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: ctx.id,
    object: 'chat.completion.chunk',
    created: ctx.created,
    model: ctx.model,
    service_tier: 'default',
    system_fingerprint: systemFingerprint,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [];
  const toolStart = (index: number) => {
    const call = answer.toolCalls[index];
    if (call === undefined) throw new Error(`no tool call at index ${index}`);
    return [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }];
  };
  if (answer.text.length > 0 || answer.toolCalls.length === 0) {
    // A text answer opens with an empty content delta.
    chunks.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const piece of textDeltas(answer.text)) chunks.push(chunk({ content: piece }));
  }
  answer.toolCalls.forEach((call, index) => {
    // A tool-call-only answer opens with the first call, its content null.
    if (index === 0 && answer.text.length === 0) {
      chunks.push(chunk({ role: 'assistant', content: null, tool_calls: toolStart(0), refusal: null }));
    } else {
      chunks.push(chunk({ tool_calls: toolStart(index) }));
    }
    for (const fragment of jsonFragments(JSON.stringify(call.arguments))) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(answer)));
  if (includeUsage) {
    chunks.push({
      id: ctx.id,
      object: 'chat.completion.chunk',
      created: ctx.created,
      model: ctx.model,
      service_tier: 'default',
      system_fingerprint: systemFingerprint,
      choices: [],
      usage: usageBody(answer.usage),
    });
  }
  return chunks;
}

function errorBody(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

/** How OpenAI shows a wrong key: the first 8 and last 4 characters, stars between; short keys whole. */
export function maskOpenAiKey(key: string): string {
  if (key.length <= 12) return key;
  return `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}`;
}

export interface OpenAiErrorInput {
  status: number;
  message?: string;
  retryAfterSeconds?: number;
  model: string;
  apiKey: string | null;
}

/** The error OpenAI answers with for `status`. */
export function openAiError(input: OpenAiErrorInput): WireError {
  const { status, model, apiKey } = input;
  const headers: Record<string, string> = {};
  if (input.retryAfterSeconds !== undefined) headers['retry-after'] = String(input.retryAfterSeconds);
  const wait = input.retryAfterSeconds ?? 20;
  let body: WireError['body'];
  if (status === 401) {
    body =
      apiKey === null || apiKey === ''
        ? errorBody(
            input.message ??
              "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
            'invalid_request_error',
            null,
          )
        : errorBody(
            input.message ?? `Incorrect API key provided: ${maskOpenAiKey(apiKey)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            'invalid_request_error',
            'invalid_api_key',
          );
  } else if (status === 404) {
    body = errorBody(input.message ?? `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
  } else if (status === 429) {
    body = errorBody(
      input.message ??
        `Rate limit reached for ${model} in organization org-fakellm on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${wait}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
      'requests',
      'rate_limit_exceeded',
    );
  } else if (status === 403) {
    body = errorBody(input.message ?? 'You are not allowed to sample from this model', 'invalid_request_error', null);
  } else if (status === 503) {
    body = errorBody(input.message ?? 'The engine is currently overloaded, please try again later.', 'server_error', null);
  } else if (status >= 500) {
    body = errorBody(
      input.message ??
        'The server had an error while processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if the error persists.',
      'server_error',
      null,
    );
  } else {
    body = errorBody(input.message ?? 'Invalid request.', 'invalid_request_error', null);
  }
  return { status, body, headers };
}

/** The 400 OpenAI answers a body that is not JSON with. */
export function openAiBadJson(): WireError {
  return {
    status: 400,
    headers: {},
    body: errorBody(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
      'invalid_request_error',
      null,
    ),
  };
}

/** The 400 for a JSON body that is not a valid chat completion request, or `null` if it is. */
export function openAiInvalidRequest(body: Record<string, unknown>): WireError | null {
  if (typeof body.model !== 'string' || body.model === '') {
    return {
      status: 400,
      headers: {},
      body: errorBody('you must provide a model parameter', 'invalid_request_error', null),
    };
  }
  if (!Array.isArray(body.messages)) {
    return {
      status: 400,
      headers: {},
      body: errorBody("Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages'),
    };
  }
  return null;
}

/** The 404 OpenAI answers an unknown route with. */
export function openAiUnknownRoute(method: string, path: string): WireError {
  return {
    status: 404,
    headers: {},
    body: errorBody(`Invalid URL (${method} ${path})`, 'invalid_request_error', null),
  };
}
