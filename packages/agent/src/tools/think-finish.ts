/**
 * `think` (a place to reason that changes nothing) and `finish` (the agent is done; its message
 * is the final answer), as in OpenHands.
 * @module
 */
import { z } from 'zod';
import { defineTool } from './define-tool.js';

const thinkArgs = z.object({ thought: z.string().describe('Your reasoning.') });
const finishArgs = z.object({ message: z.string().describe('A summary of what you did and the outcome, for the user.') });

export function thinkTool() {
  return defineTool({
    name: 'think',
    description: 'Think something through (plan, weigh options, reflect on results). It changes nothing and returns nothing new.',
    input: thinkArgs,
    actionKind: 'ThinkAction',
    observationKind: 'ThinkObservation',
    summarize: (args) => `think: ${args.thought.slice(0, 120)}`,
    readOnly: true,
    async execute() {
      return { text: 'Your thought has been logged.', isError: false };
    },
  });
}

export function finishTool() {
  return defineTool({
    name: 'finish',
    description: 'Call this when the task is complete (or cannot be completed), with a summary for the user. It ends your work.',
    input: finishArgs,
    actionKind: 'FinishAction',
    observationKind: 'FinishObservation',
    summarize: (args) => `finish: ${args.message.slice(0, 120)}`,
    readOnly: true,
    async execute(args) {
      return { text: args.message, isError: false, finish: true };
    },
  });
}
