/**
 * One model call of the agent loop, made on the provider's language model directly
 * (`LanguageModelV3.doStream`, the AI SDK's provider interface), streamed, with retries.
 *
 * Not through `streamText`: it validates the whole prompt with zod on every call, which for an
 * agent whose history grows step by step cost ~8 ms a step at 200 steps and most of the
 * overhead per step (the bar: ≤ 10 ms). The history is built by the agent itself
 * (`toModelMessages`), already in the provider's prompt shape, so there is nothing to validate.
 * @module
 */
import type { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';

export interface ModelStep {
  text: string;
  reasoning: string;
  calls: { toolCallId: string; toolName: string; input: unknown }[];
  responseId: string;
  usage: StepUsage;
  /** The model that answered, as the provider named it (it may be more precise than the one asked for). */
  responseModel: string | null;
  /** Why the model stopped: the provider's own word (`stop`, `tool_calls`, `end_turn`, …), else the AI SDK's. */
  finishReason: string | null;
  /** Tries it took: 1, plus the retries. */
  attempts: number;
}

/** Token usage of one call, flattened. */
export interface StepUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** A call that failed for good: after `attempts` tries (1 when the error was not worth retrying). */
export class ModelCallError extends Error {
  constructor(
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    super(lastError instanceof Error ? lastError.message : String(lastError), { cause: lastError });
    this.name = 'ModelCallError';
  }
}

export interface ModelCallInput {
  model: LanguageModelV3;
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
  signal: AbortSignal;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff; doubled for each retry. Default 2 s (as the AI SDK). */
  initialBackoffMs?: number;
}

/** Errors worth another attempt: the provider said so (408, 409, 429, 5xx), or the network failed. */
function retryable(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  return error instanceof TypeError && /fetch failed|network|socket|ECONN/i.test(`${error.message} ${String(error.cause ?? '')}`);
}

/** The provider's `retry-after-ms` / `retry-after` (seconds or a date), if it gave a usable one. */
function retryAfterMs(error: unknown): number | null {
  if (!APICallError.isInstance(error) || !error.responseHeaders) return null;
  const headers = Object.fromEntries(Object.entries(error.responseHeaders).map(([key, value]) => [key.toLowerCase(), value]));
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers['retry-after'];
  if (after === undefined) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

export async function callModel(input: ModelCallInput): Promise<ModelStep> {
  const errors: unknown[] = [];
  let backoff = input.initialBackoffMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    try {
      const step = await streamOnce(input);
      step.attempts = attempt;
      return step;
    } catch (error) {
      if (input.signal.aborted) throw error;
      errors.push(error);
      if (attempt > input.maxRetries || !retryable(error)) throw new ModelCallError(attempt, error);
      // The provider's retry-after wins when it asks for less than a minute.
      const asked = retryAfterMs(error);
      await sleep(asked !== null && asked < 60_000 ? asked : backoff, input.signal);
      backoff *= 2;
    }
  }
}

async function streamOnce(input: ModelCallInput): Promise<ModelStep> {
  const { stream } = await input.model.doStream({
    prompt: input.prompt,
    tools: input.tools,
    toolChoice: { type: 'auto' },
    abortSignal: input.signal,
  });
  const step: ModelStep = {
    text: '',
    reasoning: '',
    calls: [],
    responseId: '',
    usage: emptyStepUsage(),
    responseModel: null,
    finishReason: null,
    attempts: 1,
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      switch (part.type) {
        case 'text-delta':
          step.text += part.delta;
          break;
        case 'reasoning-delta':
          step.reasoning += part.delta;
          break;
        case 'tool-call':
          step.calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: parseToolInput(part.input) });
          break;
        case 'response-metadata':
          if (part.id) step.responseId = part.id;
          if (part.modelId) step.responseModel = part.modelId;
          break;
        case 'finish':
          step.usage = flattenUsage(part.usage);
          step.finishReason = part.finishReason.raw ?? part.finishReason.unified;
          break;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  return step;
}

/** A tool call's arguments as the model wrote them: JSON, or the text itself when it is not (the tool's parse says so). */
function parseToolInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const count = (value: number | undefined): number => (value && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

function flattenUsage(usage: LanguageModelV3Usage): StepUsage {
  return {
    inputTokens: count(usage.inputTokens.total),
    outputTokens: count(usage.outputTokens.total),
    cacheReadTokens: count(usage.inputTokens.cacheRead),
    cacheWriteTokens: count(usage.inputTokens.cacheWrite),
    reasoningTokens: count(usage.outputTokens.reasoning),
  };
}

export const emptyStepUsage = (): StepUsage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
