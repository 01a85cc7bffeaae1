/**
 * The step logic of a scripted model, shared by the end-to-end tests that drive the built-in agent
 * with the fake LLM: read what a request asks and how far the agent has got, then answer that
 * step's tool call from a list.
 *
 * Two ways of counting steps, because tests mean different things by them:
 * - {@link latestAsk}: a conversation that goes on (follow-ups in a thread, an approval) — the
 *   step restarts at every new user message.
 * - {@link firstAsk}: one task per conversation — the task is the first user message and every
 *   assistant message so far is a step.
 * @module
 */
import type { FakeLlmTurn, RecordedLlmRequest } from '@agent-platform/testing/fake-llm';

/** A chat message as the fake LLM records it. */
export type Message = { role: string; content: unknown };

/** What a scripted model reads from one request. */
export interface ScriptedRequest {
  /** The request's messages, in order. */
  messages: Message[];
  /** The asking user message's content, as JSON text (so a test can look for words in it). */
  asked: string;
  /** How many assistant messages came since that user message: the index of the step to answer. */
  step: number;
  /** The whole conversation as JSON text. */
  all: string;
}

/** A message's content as JSON text (`""` for none). */
export const textOf = (message: Message | undefined): string => JSON.stringify(message?.content ?? '');

/** A turn that calls one tool. */
export const call = (name: string, args: Record<string, unknown>): FakeLlmTurn => ({ toolCalls: [{ name, arguments: args }] });

/** The turn for `step` of a script; past its end, a plain `done` (the agent stops). */
export const stepOf = (script: FakeLlmTurn[], step: number): FakeLlmTurn => script[step] ?? { text: 'done' };

/** The latest user message of a conversation that may go on, and the steps taken since it. */
export function latestAsk(request: RecordedLlmRequest): ScriptedRequest {
  const messages = request.body.messages as Message[];
  let last = -1;
  for (let index = messages.length - 1; index >= 0 && last < 0; index--) if (messages[index]!.role === 'user') last = index;
  const since = messages.slice(last + 1);
  return {
    messages,
    asked: textOf(messages[last]),
    step: since.filter((message) => message.role === 'assistant').length,
    all: JSON.stringify(messages),
  };
}

/** The first user message of a one-task conversation, and every step taken in it. */
export function firstAsk(request: RecordedLlmRequest): ScriptedRequest {
  const messages = request.body.messages as Message[];
  return {
    messages,
    asked: textOf(messages.find((message) => message.role === 'user')),
    step: messages.filter((message) => message.role === 'assistant').length,
    all: JSON.stringify(messages),
  };
}
