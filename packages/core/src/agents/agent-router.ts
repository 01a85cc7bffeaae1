/**
 * Which agent runs for an owner, by the name in their `agent` setting: `coding` (the built-in
 * LLM agent with every tool, the default), `read-only` (the built-in agent with only tools that
 * read), `command` (the configured command runner), or a runner the host registers by name.
 * The run's first event says which and why. The router is also the list of names owners may
 * choose ({@link AgentCatalog}): the platform checks a saved `agent` against it and lists it at
 * `GET /api/options/agents`.
 * @module
 */
import type { AgentEvent, AgentRunInput, AgentRunner } from '../ports/agent-runner.js';
import { agentNoteDraft } from '../schemas/agent-events.js';

export interface AgentRouterOptions {
  /** Runners an owner can name in their `agent` setting, besides the built-in names (a host's runner wins over a built-in of the same name). */
  runners?: Record<string, AgentRunner>;
  /** The built-in LLM agent with every tool (`coding`), for owners with `llm_model` set. */
  llm?: AgentRunner | null;
  /**
   * The built-in LLM agent with only tools that read (`read-only`): `createLlmAgentRunner({ toolset: 'read-only' })`.
   * Without it, `read-only` is not a name owners may choose.
   */
  readOnly?: AgentRunner | null;
  /** The command agent (`command`): everyone else's agent. */
  fallback: AgentRunner;
  /** The fallback's name in the first event (and another name owners may give it). Default `command`. */
  fallbackName?: string;
}

/** The agent names owners may choose here. */
export interface AgentCatalog {
  /** The names, the default first: what `GET /api/options/agents` lists and a refused name's 422 names. */
  names(): string[];
  /** Whether `name` names an agent here: one of {@link names} or an alias of one (`CodeActAgent`, `llm`, `ReadOnlyAgent`). */
  knows(name: string): boolean;
}

/** An `AgentRunner` that picks one of several per run and says so first; its names are an {@link AgentCatalog}. */
export interface AgentRouter extends AgentRunner, AgentCatalog {}

export interface AgentChoice {
  name: string;
  runner: AgentRunner;
  reason: string;
}

/** The built-in agents' stable names. */
export const AGENT_NAMES = { coding: 'coding', readOnly: 'read-only', command: 'command' } as const;

/**
 * Other names of the built-in agents. OpenHands clients send `CodeActAgent` (their default) and
 * may send `ReadOnlyAgent`; `llm` and `built-in` are this platform's earlier names.
 */
const ALIASES: Readonly<Record<string, string>> = {
  CodeActAgent: AGENT_NAMES.coding,
  llm: AGENT_NAMES.coding,
  'built-in': AGENT_NAMES.coding,
  ReadOnlyAgent: AGENT_NAMES.readOnly,
};

/** An agent that cannot run: it ends the run FAILED with the reason, and does nothing else. */
const failing = (reason: string): AgentRunner => ({
  async *run() {
    yield { type: 'finished', outcome: { status: 'FAILED', reason } };
  },
});

export function chooseAgent(input: Pick<AgentRunInput, 'settings'>, options: AgentRouterOptions): AgentChoice {
  const { agent, llmModel } = input.settings;
  const fallbackName = options.fallbackName ?? AGENT_NAMES.command;
  const fallback = (reason: string): AgentChoice => ({ name: fallbackName, runner: options.fallback, reason });
  const named = agent ? options.runners?.[agent] : undefined;
  if (agent && named) return { name: agent, runner: named, reason: `the owner's agent setting names "${agent}"` };
  const canonical = agent ? (ALIASES[agent] ?? agent) : null;

  // Read-only is what the owner asked for, or nothing: never an agent that writes in its place.
  if (canonical === AGENT_NAMES.readOnly) {
    const name = AGENT_NAMES.readOnly;
    const asked = `the owner's agent setting names "${agent}"`;
    if (!options.readOnly)
      return { name, runner: failing(`${asked}, but the read-only agent is not available here`), reason: `${asked}; it is not available here` };
    if (!llmModel) {
      const why = `${asked}, which needs an llm_model: set llm_model in the settings`;
      return { name, runner: failing(`the read-only agent cannot run: ${why}`), reason: why };
    }
    return { name, runner: options.readOnly, reason: `${asked}; the owner's llm_model is ${llmModel}` };
  }
  if (canonical === AGENT_NAMES.command || (agent && agent === fallbackName)) return fallback(`the owner's agent setting names "${agent}"`);

  // `coding`, its aliases, no name, and a name nobody registered (an old setting): the default.
  const unknown = canonical && canonical !== AGENT_NAMES.coding ? `no agent "${agent}" is registered; ` : '';
  if (options.llm && llmModel) return { name: AGENT_NAMES.coding, runner: options.llm, reason: `${unknown}the owner's llm_model is ${llmModel}` };
  return fallback(`${unknown}${options.llm ? 'the owner has no llm_model set' : 'the built-in LLM agent is not configured here'}`);
}

/** The names a router with these options answers to, the default first. */
export function agentCatalog(options: AgentRouterOptions): AgentCatalog {
  const builtIn = [AGENT_NAMES.coding, ...(options.readOnly ? [AGENT_NAMES.readOnly] : []), AGENT_NAMES.command];
  const names = [...new Set([...builtIn, ...Object.keys(options.runners ?? {})])];
  const known = new Set([...names, options.fallbackName ?? AGENT_NAMES.command]);
  return {
    names: () => [...names],
    knows: (name) => known.has(name) || (ALIASES[name] !== undefined && known.has(ALIASES[name])),
  };
}

/** An {@link AgentRouter}: picks the runner per run ({@link chooseAgent}), and says so first. */
export function createAgentRouter(options: AgentRouterOptions): AgentRouter {
  const runners = [options.llm, options.readOnly, options.fallback, ...Object.values(options.runners ?? {})];
  return {
    ...agentCatalog(options),
    // The security analyzers any of its runners rates with: names owners may save in `security_analyzer`.
    securityAnalyzers: [...new Set(runners.flatMap((runner) => runner?.securityAnalyzers ?? []))],
    async *run(input: AgentRunInput): AsyncIterable<AgentEvent> {
      const choice = chooseAgent(input, options);
      yield { type: 'record', event: agentNoteDraft({ type: 'agent_selected', agent: choice.name, reason: choice.reason }) };
      yield* choice.runner.run(input);
    },
  };
}

/** The names `agent` answers to, when it is an {@link AgentRouter} (or another {@link AgentCatalog}); `null` for a plain runner. */
export function catalogOf(agent: AgentRunner | undefined): AgentCatalog | null {
  const candidate = agent as Partial<AgentCatalog> | undefined;
  return candidate && typeof candidate.names === 'function' && typeof candidate.knows === 'function' ? (candidate as AgentCatalog) : null;
}
