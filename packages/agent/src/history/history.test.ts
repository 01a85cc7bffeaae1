/**
 * The model's view of a history taken up after an interruption: a tool call whose observation is
 * stored is answered by it (the call is not made again); one started but never answered is
 * answered as interrupted, since whether it ran, and how far, is not known.
 */
import { describe, expect, it } from 'vitest';
import { actionEvent, messageEvent, observationEvent } from './events.js';
import { INTERRUPTED_ACTION, toModelMessages } from './history.js';
import { resumedNotice } from '../run/prepare-run.js';

const action = (toolCallId: string, command: string, responseId: string) =>
  actionEvent({
    thought: '',
    reasoning: null,
    actionKind: 'TerminalAction',
    args: { command },
    toolName: 'terminal',
    toolCallId,
    responseId,
    summary: command,
    metrics: null,
  });

describe('toModelMessages after an interruption', () => {
  it('answers an observed call with its observation and an unanswered one as interrupted', () => {
    const first = action('call_1', 'make build', 'resp_1');
    const messages = toModelMessages([
      messageEvent('user', 'Build it, then test it.'),
      first,
      observationEvent({
        observationKind: 'TerminalObservation',
        toolName: 'terminal',
        toolCallId: 'call_1',
        actionId: first.id,
        text: 'built ok',
        isError: false,
      }),
      action('call_2', 'make test', 'resp_2'),
      messageEvent('user', resumedNotice(2)),
    ]);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user']);
    const results = messages.filter((message) => message.role === 'tool').flatMap((message) => message.content);
    expect(results).toEqual([
      { type: 'tool-result', toolCallId: 'call_1', toolName: 'terminal', output: { type: 'text', value: 'built ok' } },
      { type: 'tool-result', toolCallId: 'call_2', toolName: 'terminal', output: { type: 'error-text', value: INTERRUPTED_ACTION } },
    ]);
    expect(JSON.stringify(messages.at(-1))).toContain('You continue as attempt 2, in a new sandbox');
  });
});
