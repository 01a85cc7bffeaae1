import { describe, expect, it } from 'vitest';
import {
  agentCatalog,
  chooseAgent,
  createAgentRouter,
  emptyAgentSettings,
  type AgentEvent,
  type AgentRouterOptions,
  type AgentRunInput,
  type AgentRunner,
} from '@agent-platform/core';

/** A runner that only says who it is. */
const runner = (name: string): AgentRunner => ({
  async *run() {
    yield { type: 'finished', outcome: { status: 'COMPLETED', reason: null, finalResponse: name } };
  },
});

const coding = runner('coding');
const readOnly = runner('read-only');
const command = runner('command');
const reviewer = runner('reviewer');
const options: AgentRouterOptions = { llm: coding, readOnly, fallback: command, runners: { reviewer } };

const settings = (agent: string | null, llmModel: string | null = 'openai/gpt-4o') => ({ settings: { ...emptyAgentSettings(), agent, llmModel } });

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('chooseAgent', () => {
  it('runs the coding agent by default, and for coding and its aliases', () => {
    for (const agent of [null, '', 'coding', 'CodeActAgent', 'llm', 'built-in']) {
      const choice = chooseAgent(settings(agent), options);
      expect(choice, String(agent)).toMatchObject({ name: 'coding', reason: "the owner's llm_model is openai/gpt-4o" });
      expect(choice.runner).toBe(coding);
    }
  });

  it('runs the command agent for coding without an llm_model, or without the built-in agent, saying why', () => {
    expect(chooseAgent(settings('coding', null), options)).toMatchObject({ name: 'command', runner: command, reason: 'the owner has no llm_model set' });
    expect(chooseAgent(settings('CodeActAgent'), { fallback: command })).toMatchObject({
      name: 'command',
      runner: command,
      reason: 'the built-in LLM agent is not configured here',
    });
  });

  it('runs the read-only agent for read-only and ReadOnlyAgent', () => {
    for (const agent of ['read-only', 'ReadOnlyAgent']) {
      const choice = chooseAgent(settings(agent), options);
      expect(choice).toMatchObject({ name: 'read-only', reason: `the owner's agent setting names "${agent}"; the owner's llm_model is openai/gpt-4o` });
      expect(choice.runner).toBe(readOnly);
    }
  });

  it('never runs another agent in the read-only one’s place: without an llm_model, or where it is not available, the run fails with the reason', async () => {
    const noModel = chooseAgent(settings('read-only', null), options);
    expect(noModel.name).toBe('read-only');
    expect(noModel.runner).not.toBe(command);
    expect(noModel.reason).toBe(`the owner's agent setting names "read-only", which needs an llm_model: set llm_model in the settings`);
    expect(await collect(noModel.runner.run({} as AgentRunInput))).toEqual([
      {
        type: 'finished',
        outcome: {
          status: 'FAILED',
          reason: `the read-only agent cannot run: the owner's agent setting names "read-only", which needs an llm_model: set llm_model in the settings`,
        },
      },
    ]);

    const unavailable = chooseAgent(settings('read-only'), { llm: coding, fallback: command });
    expect(unavailable).toMatchObject({ name: 'read-only', reason: `the owner's agent setting names "read-only"; it is not available here` });
    expect(await collect(unavailable.runner.run({} as AgentRunInput))).toEqual([
      { type: 'finished', outcome: { status: 'FAILED', reason: `the owner's agent setting names "read-only", but the read-only agent is not available here` } },
    ]);
  });

  it('runs the command agent for command, and for the fallback’s own name', () => {
    expect(chooseAgent(settings('command'), options)).toMatchObject({ name: 'command', runner: command, reason: `the owner's agent setting names "command"` });
    const demo = { ...options, fallbackName: 'demo' };
    expect(chooseAgent(settings('command'), demo)).toMatchObject({ name: 'demo', runner: command });
    expect(chooseAgent(settings('demo'), demo)).toMatchObject({ name: 'demo', runner: command, reason: `the owner's agent setting names "demo"` });
  });

  it('runs a runner the host registers by its name, which wins over a built-in name', () => {
    expect(chooseAgent(settings('reviewer'), options)).toMatchObject({
      name: 'reviewer',
      runner: reviewer,
      reason: `the owner's agent setting names "reviewer"`,
    });
    const own = runner('own read-only');
    expect(chooseAgent(settings('read-only', null), { ...options, runners: { 'read-only': own } }).runner).toBe(own);
  });

  it('an unknown name (a setting stored before) runs the default, and the reason says the name is unknown', () => {
    expect(chooseAgent(settings('nope'), options)).toMatchObject({
      name: 'coding',
      runner: coding,
      reason: `no agent "nope" is registered; the owner's llm_model is openai/gpt-4o`,
    });
    expect(chooseAgent(settings('nope', null), options)).toMatchObject({
      name: 'command',
      runner: command,
      reason: `no agent "nope" is registered; the owner has no llm_model set`,
    });
  });
});

describe('the agent catalog', () => {
  it('lists the names owners may choose, the default first, and knows their aliases', () => {
    const catalog = agentCatalog(options);
    expect(catalog.names()).toEqual(['coding', 'read-only', 'command', 'reviewer']);
    for (const name of ['coding', 'CodeActAgent', 'llm', 'built-in', 'read-only', 'ReadOnlyAgent', 'command', 'reviewer'])
      expect(catalog.knows(name), name).toBe(true);
    for (const name of ['nope', 'Coding', 'demo', 'BrowsingAgent']) expect(catalog.knows(name), name).toBe(false);
  });

  it('leaves out read-only where it is not available, keeps coding (OpenHands clients send CodeActAgent), and knows the fallback’s own name', () => {
    const catalog = agentCatalog({ fallback: command, fallbackName: 'demo' });
    expect(catalog.names()).toEqual(['coding', 'command']);
    expect(catalog.knows('CodeActAgent')).toBe(true);
    expect(catalog.knows('demo')).toBe(true);
    expect(catalog.knows('read-only')).toBe(false);
    expect(catalog.knows('ReadOnlyAgent')).toBe(false);
  });
});

describe('createAgentRouter', () => {
  it('says first which agent runs and why, then runs it; it is its own catalog', async () => {
    const router = createAgentRouter(options);
    expect(router.names()).toEqual(['coding', 'read-only', 'command', 'reviewer']);
    const events = await collect(router.run({ ...settings('ReadOnlyAgent') } as AgentRunInput));
    expect(events[0]).toMatchObject({
      type: 'record',
      event: { kind: 'agent_event', data: { type: 'agent_selected', agent: 'read-only', reason: expect.stringContaining('ReadOnlyAgent') } },
    });
    expect(events[1]).toMatchObject({ type: 'finished', outcome: { finalResponse: 'read-only' } });
  });
});
