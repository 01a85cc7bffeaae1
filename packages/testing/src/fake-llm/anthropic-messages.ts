/**
 * The Anthropic Messages wire format (`POST /v1/messages`): answers, stream events and error
 * bodies as api.anthropic.com sends them.
 * @module
 */
import type { WireError } from './openai-chat.js';
import { jsonFragments, randomId, textDeltas } from './pieces.js';
import type { ResolvedAnswer } from './types.js';

export interface AnthropicAnswerContext {
  id: string;
  model: string;
}

export function newAnthropicContext(model: string): AnthropicAnswerContext {
  return { id: `msg_${randomId(24)}`, model };
}

/** Anthropic's `input_tokens` leaves out the cached tokens that `FakeLlmUsage.input` includes. */
function inputUsage(usage: ResolvedAnswer['usage']) {
  return {
    input_tokens: Math.max(0, usage.input - usage.cacheRead - usage.cacheWrite),
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
  };
}

function usageBody(usage: ResolvedAnswer['usage']) {
  return {
    ...inputUsage(usage),
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: usage.output,
    service_tier: 'standard',
  };
}

function stopReason(answer: ResolvedAnswer): 'tool_use' | 'end_turn' {
  return answer.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

/** The `message` object of a non-streamed answer. */
export function anthropicMessage(answer: ResolvedAnswer, ctx: AnthropicAnswerContext): unknown {
  const content: unknown[] = [];
  if (answer.text.length > 0) content.push({ type: 'text', text: answer.text });
  for (const call of answer.toolCalls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
  }
  return {
    id: ctx.id,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usageBody(answer.usage),
  };
}

export interface AnthropicEvent {
  event: string;
  data: unknown;
}

/**
 * The events of a streamed answer, in order (each is sent as `event: <type>\ndata: <json>\n\n`):
 * `message_start`, per content block `content_block_start` / `content_block_delta` /
 * `content_block_stop` (a `ping` after the first start, as Anthropic sends), `message_delta` and
 * `message_stop`.
 */
export function anthropicEvents(answer: ResolvedAnswer, ctx: AnthropicAnswerContext): AnthropicEvent[] {
  const events: AnthropicEvent[] = [];
  const push = (data: { type: string } & Record<string, unknown>) => events.push({ event: data.type, data });
  push({
    type: 'message_start',
    message: {
      id: ctx.id,
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usageBody(answer.usage), output_tokens: Math.min(1, answer.usage.output) },
    },
  });
  let index = 0;
  const pingAfterFirstStart = () => {
    if (index === 0) push({ type: 'ping' });
  };
  if (answer.text.length > 0) {
    push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    pingAfterFirstStart();
    for (const piece of textDeltas(answer.text)) {
      push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    }
    push({ type: 'content_block_stop', index });
    index += 1;
  }
  for (const call of answer.toolCalls) {
    push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    pingAfterFirstStart();
    // Anthropic opens every tool input with an empty fragment.
    push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const fragment of jsonFragments(JSON.stringify(call.arguments))) {
      push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } });
    }
    push({ type: 'content_block_stop', index });
    index += 1;
  }
  if (index === 0) push({ type: 'ping' });
  push({
    type: 'message_delta',
    delta: { stop_reason: stopReason(answer), stop_sequence: null },
    usage: { ...inputUsage(answer.usage), output_tokens: answer.usage.output },
  });
  push({ type: 'message_stop' });
  return events;
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: `req_${randomId(24)}` };
}

export interface AnthropicErrorInput {
  status: number;
  message?: string;
  retryAfterSeconds?: number;
  model: string;
  apiKey: string | null;
}

/** The error Anthropic answers with for `status`. */
export function anthropicError(input: AnthropicErrorInput): WireError {
  const { status, model } = input;
  const headers: Record<string, string> = {};
  if (input.retryAfterSeconds !== undefined) headers['retry-after'] = String(input.retryAfterSeconds);
  const [type, message] = ((): [string, string] => {
    switch (status) {
      case 400:
        return ['invalid_request_error', 'Invalid request.'];
      case 401:
        return ['authentication_error', input.apiKey === null || input.apiKey === '' ? 'x-api-key header is required' : 'invalid x-api-key'];
      case 403:
        return ['permission_error', 'Your API key does not have permission to use the specified resource.'];
      case 404:
        return ['not_found_error', `model: ${model}`];
      case 413:
        return ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'];
      case 429:
        return [
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.',
        ];
      case 529:
        return ['overloaded_error', 'Overloaded'];
      default:
        return status >= 500 ? ['api_error', 'Internal server error'] : ['invalid_request_error', 'Invalid request.'];
    }
  })();
  return { status, headers, body: errorBody(type, input.message ?? message) };
}

/** The 400 Anthropic answers a body that is not JSON with. */
export function anthropicBadJson(): WireError {
  return {
    status: 400,
    headers: {},
    body: errorBody('invalid_request_error', 'There was an error parsing the body of the request: it is not valid JSON.'),
  };
}

/** The 400 for a JSON body that is not a valid Messages request, or `null` if it is. */
export function anthropicInvalidRequest(body: Record<string, unknown>): WireError | null {
  const missing = ['model', 'max_tokens', 'messages'].find((field) => body[field] === undefined || body[field] === null);
  if (missing !== undefined) {
    return { status: 400, headers: {}, body: errorBody('invalid_request_error', `${missing}: Field required`) };
  }
  if (typeof body.model !== 'string') {
    return { status: 400, headers: {}, body: errorBody('invalid_request_error', 'model: Input should be a valid string') };
  }
  if (!Array.isArray(body.messages)) {
    return { status: 400, headers: {}, body: errorBody('invalid_request_error', 'messages: Input should be a valid list') };
  }
  return null;
}
