/**
 * Which agent runs for an owner: the runner their `agent` setting names, if one is
 * registered under that name; else the built-in LLM agent when their `llm_model` is set; else
 * the fallback (the configured command runner). The run's first event says which and why.
 * @module
 */
import type { AgentEvent, AgentRunInput, AgentRunner } from '../ports/agent-runner.js';
import { agentNoteDraft } from '../schemas/agent-events.js';

export interface AgentRouterOptions {
  /** Runners an owner can name in their `agent` setting. */
  runners?: Record<string, AgentRunner>;
  /** The built-in LLM agent, for owners with `llm_model` set. */
  llm?: AgentRunner | null;
  /** Everyone else's agent. */
  fallback: AgentRunner;
  /** The fallback's name in the first event. Default `command`. */
  fallbackName?: string;
}

export interface AgentChoice {
  name: string;
  runner: AgentRunner;
  reason: string;
}

/** OpenHands' default `agent` value: it asks for the standard agent, which here is the built-in one. */
const BUILT_IN_ALIASES = new Set(['CodeActAgent', 'llm', 'built-in']);

export function chooseAgent(input: Pick<AgentRunInput, 'settings'>, options: AgentRouterOptions): AgentChoice {
  const { agent, llmModel } = input.settings;
  const fallbackName = options.fallbackName ?? 'command';
  const named = agent ? options.runners?.[agent] : undefined;
  if (agent && named) return { name: agent, runner: named, reason: `the owner's agent setting names "${agent}"` };
  const unknown = agent && !BUILT_IN_ALIASES.has(agent) ? `no agent "${agent}" is registered; ` : '';
  if (options.llm && llmModel) return { name: 'llm', runner: options.llm, reason: `${unknown}the owner's llm_model is ${llmModel}` };
  const why = options.llm ? 'the owner has no llm_model set' : 'the built-in LLM agent is not configured here';
  return { name: fallbackName, runner: options.fallback, reason: `${unknown}${why}` };
}

/** An `AgentRunner` that picks one of several per run and says so first. */
export function createAgentRouter(options: AgentRouterOptions): AgentRunner {
  return {
    async *run(input: AgentRunInput): AsyncIterable<AgentEvent> {
      const choice = chooseAgent(input, options);
      yield { type: 'record', event: agentNoteDraft({ type: 'agent_selected', agent: choice.name, reason: choice.reason }) };
      yield* choice.runner.run(input);
    },
  };
}
