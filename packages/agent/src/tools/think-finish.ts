/**
 * `think` (a place to reason that changes nothing) and `finish` (the agent is done; its message
 * is the final answer), as in OpenHands.
 * @module
 */
import { z } from 'zod';
import { parseWith, type AgentTool } from './tool.js';

const thinkArgs = z.object({ thought: z.string().describe('Your reasoning.') });
const finishArgs = z.object({ message: z.string().describe('A summary of what you did and the outcome, for the user.') });

export function thinkTool(): AgentTool<z.infer<typeof thinkArgs>> {
  return {
    name: 'think',
    description: 'Think something through (plan, weigh options, reflect on results). It changes nothing and returns nothing new.',
    inputSchema: thinkArgs,
    actionKind: 'ThinkAction',
    observationKind: 'ThinkObservation',
    parse: parseWith(thinkArgs),
    summarize: (args) => `think: ${args.thought.slice(0, 120)}`,
    readOnly: true,
    async execute() {
      return { text: 'Your thought has been logged.', isError: false };
    },
  };
}

export function finishTool(): AgentTool<z.infer<typeof finishArgs>> {
  return {
    name: 'finish',
    description: 'Call this when the task is complete (or cannot be completed), with a summary for the user. It ends your work.',
    inputSchema: finishArgs,
    actionKind: 'FinishAction',
    observationKind: 'FinishObservation',
    parse: parseWith(finishArgs),
    summarize: (args) => `finish: ${args.message.slice(0, 120)}`,
    readOnly: true,
    async execute(args) {
      return { text: args.message, isError: false, finish: true };
    },
  };
}
