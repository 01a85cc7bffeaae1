/**
 * A scripted fake LLM server speaking the OpenAI Chat Completions and Anthropic Messages wire
 * formats over `node:http`, for testing code built on model SDKs without a real model.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicBadJson, anthropicError, anthropicEvents, anthropicInvalidRequest, anthropicMessage, newAnthropicContext } from './anthropic-messages.js';
import {
  newOpenAiContext,
  openAiBadJson,
  openAiChunks,
  openAiCompletion,
  openAiError,
  openAiInvalidRequest,
  openAiUnknownRoute,
  type WireError,
} from './openai-chat.js';
import { randomId } from './pieces.js';
import type { FakeLlmServer, FakeLlmServerOptions, FakeLlmTurn, RecordedLlmRequest, ResolvedAnswer } from './types.js';
import { readBody } from '../http-support/read-body.js';

type Api = RecordedLlmRequest['api'];

const routes: Record<string, Api> = {
  '/v1/chat/completions': 'openai-chat',
  '/chat/completions': 'openai-chat',
  '/v1/messages': 'anthropic-messages',
  '/messages': 'anthropic-messages',
};

/** Estimated tokens of a text: 4 characters a token, at least 1. */
function estimateTokens(characters: number): number {
  return Math.max(1, Math.ceil(characters / 4));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function bearerToken(req: IncomingMessage): string | undefined {
  const authorization = headerValue(req.headers.authorization);
  const match = authorization === undefined ? null : /^Bearer\s+(.*)$/i.exec(authorization);
  return match?.[1]?.trim();
}

function apiKeyOf(api: Api, req: IncomingMessage): string | null {
  if (api === 'openai-chat') return bearerToken(req) ?? null;
  return headerValue(req.headers['x-api-key']) ?? bearerToken(req) ?? null;
}

/**
 * Starts a fake LLM server on `127.0.0.1` (a free port). It answers
 * `POST /v1/chat/completions` and `/chat/completions` (OpenAI Chat Completions, so `${url}` and
 * `${url}/v1` both work as an OpenAI-compatible base URL) and `POST /v1/messages` and `/messages`
 * (Anthropic Messages) with the scripted turns, streamed (`"stream": true`) or not, in the exact
 * wire format of the real services, errors included. Every request is recorded in `requests`.
 *
 * @example
 * ```ts
 * const llm = await startFakeLlmServer({
 *   turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'Done.' }],
 * });
 * const openai = createOpenAI({ baseURL: `${llm.url}/v1`, apiKey: 'sk-test' });
 * // … run the agent against openai.chat('gpt-4o-mini'), then:
 * expect(llm.requests).toHaveLength(2);
 * await llm.close();
 * ```
 */
export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const queue: FakeLlmTurn[] = [...(options.turns ?? [])];
  const requests: RecordedLlmRequest[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  let toolCallCount = 0;
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || closed) return resolve();
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve();
        }, ms),
        done: resolve,
      };
      timers.add(entry);
    });

  const nextTurn = async (request: RecordedLlmRequest): Promise<FakeLlmTurn> => {
    const scripted = queue.shift();
    if (scripted !== undefined) return scripted;
    if (options.respond) return options.respond(request);
    return { text: 'done' };
  };

  const resolveAnswer = (api: Api, turn: Exclude<FakeLlmTurn, { error: unknown }>, rawBodyLength: number): ResolvedAnswer => {
    const text = turn.text ?? '';
    const toolCalls = (turn.toolCalls ?? []).map((call) => {
      toolCallCount += 1;
      const id = call.id ?? (api === 'openai-chat' ? `call_${toolCallCount}` : `toolu_${toolCallCount}`);
      return { id, name: call.name, arguments: call.arguments };
    });
    const outputChars = text.length + toolCalls.reduce((sum, call) => sum + JSON.stringify(call.arguments).length, 0);
    const usage = turn.usage ?? { input: estimateTokens(rawBodyLength), output: estimateTokens(outputChars) };
    return {
      text,
      toolCalls,
      usage: { input: usage.input, output: usage.output, cacheRead: usage.cacheRead ?? 0, cacheWrite: usage.cacheWrite ?? 0 },
    };
  };

  const isGone = (res: ServerResponse) => closed || res.destroyed || res.writableEnded;

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (isGone(res)) return;
    const payload = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      ...headers,
    });
    res.end(payload);
  };

  const sendError = (res: ServerResponse, error: WireError, headers: Record<string, string>) =>
    sendJson(res, error.status, error.body, { ...headers, ...error.headers });

  /** Writes SSE frames one by one, yielding between them, until done or the client is gone. */
  const sendStream = async (res: ServerResponse, frames: string[], headers: Record<string, string>) => {
    if (isGone(res)) return;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
    });
    for (const frame of frames) {
      if (isGone(res)) return;
      res.write(frame);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!isGone(res)) res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const api = routes[path];
    if (req.method !== 'POST' || api === undefined) {
      // Drain the body so keep-alive connections stay usable.
      req.resume();
      const error =
        path.endsWith('/messages') && api === undefined
          ? anthropicError({ status: 404, model: '', apiKey: null, message: 'Not Found' })
          : openAiUnknownRoute(req.method ?? 'GET', path);
      sendError(res, error, {});
      return;
    }
    const isOpenAi = api === 'openai-chat';
    const responseHeaders: Record<string, string> = isOpenAi
      ? { 'x-request-id': `req_${randomId(32)}`, 'openai-processing-ms': '1' }
      : { 'request-id': `req_${randomId(24)}` };

    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(res, isOpenAi ? openAiBadJson() : anthropicBadJson(), responseHeaders);
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      sendError(res, isOpenAi ? openAiBadJson() : anthropicBadJson(), responseHeaders);
      return;
    }
    const fields = body as Record<string, unknown>;
    const apiKey = apiKeyOf(api, req);
    const model = typeof fields.model === 'string' ? fields.model : '';
    const stream = fields.stream === true;
    const request: RecordedLlmRequest = {
      api,
      path,
      headers: { ...req.headers },
      body,
      stream,
      model,
      apiKey,
    };
    requests.push(request);

    const errorFor = (status: number, message?: string, retryAfterSeconds?: number): WireError => {
      const input = {
        status,
        model,
        apiKey,
        ...(message !== undefined ? { message } : {}),
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      };
      return isOpenAi ? openAiError(input) : anthropicError(input);
    };

    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      sendError(res, errorFor(401), responseHeaders);
      return;
    }
    const invalid = isOpenAi ? openAiInvalidRequest(fields) : anthropicInvalidRequest(fields);
    if (invalid !== null) {
      sendError(res, invalid, responseHeaders);
      return;
    }
    if (options.models !== undefined && !options.models.includes(model)) {
      sendError(res, errorFor(404), responseHeaders);
      return;
    }

    let turn: FakeLlmTurn;
    try {
      turn = await nextTurn(request);
    } catch (cause) {
      sendError(res, errorFor(500, cause instanceof Error ? cause.message : String(cause)), responseHeaders);
      return;
    }
    if ('error' in turn) {
      const { status, message, retryAfterSeconds } = turn.error;
      sendError(res, errorFor(status, message, retryAfterSeconds), responseHeaders);
      return;
    }
    const answer = resolveAnswer(api, turn, raw.length);
    await sleep(turn.delayMs ?? 0);
    if (isOpenAi) {
      const ctx = newOpenAiContext(model);
      if (!stream) {
        sendJson(res, 200, openAiCompletion(answer, ctx), responseHeaders);
        return;
      }
      const streamOptions = fields.stream_options as { include_usage?: unknown } | undefined;
      const includeUsage = streamOptions?.include_usage === true;
      const frames = openAiChunks(answer, ctx, includeUsage).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
      frames.push('data: [DONE]\n\n');
      await sendStream(res, frames, responseHeaders);
      return;
    }
    const ctx = newAnthropicContext(model);
    if (!stream) {
      sendJson(res, 200, anthropicMessage(answer, ctx), responseHeaders);
      return;
    }
    const frames = anthropicEvents(answer, ctx).map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    await sendStream(res, frames, responseHeaders);
  };

  const server = createServer((req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    handle(req, res).catch(() => {
      // A client that went away mid-request, or a write after close: nothing to answer.
      if (!isGone(res)) {
        try {
          sendJson(res, 500, { error: { message: 'fake LLM server error', type: 'server_error', param: null, code: null } });
        } catch {
          res.destroy();
        }
      }
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue(...turns: FakeLlmTurn[]) {
      queue.push(...turns);
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      for (const entry of timers) {
        clearTimeout(entry.timer);
        entry.done();
      }
      timers.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
