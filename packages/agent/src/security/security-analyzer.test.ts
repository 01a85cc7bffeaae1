import type { PendingAction } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness, toolResultsSeen } from '../../test-support/agent-harness.js';
import { createLlmAgentRunner } from '../llm-agent-runner.js';
import { takeModelRisk, withRiskArgument } from './model-risk.js';

const harness = new AgentHarness();
beforeAll(async () => {
  await harness.startLlm();
});
afterAll(() => harness.close());

const terminal = (command: string, risk?: string) => ({ name: 'terminal', arguments: { command, ...(risk ? { security_risk: risk } : {}) } });

/** Runs a script of terminal calls in confirmation mode; every held action is rejected. */
async function confirmRun(calls: { name: string; arguments: Record<string, unknown> }[], securityAnalyzer: string | null, options = {}) {
  await harness.startLlm({ turns: [...calls.map((call) => ({ toolCalls: [call] })), { text: 'done' }] });
  const asked: PendingAction[] = [];
  const result = await harness.run(
    {
      settings: harness.settings({ confirmationMode: true, securityAnalyzer }),
      confirm: async (action) => {
        asked.push(action);
        return { accept: false, reason: 'not that' };
      },
    },
    options,
  );
  const actions = result.records.filter((entry) => entry.event.kind === 'ActionEvent').map((entry) => entry.event.data as any);
  return { ...result, asked, actions };
}

describe('the policy analyzer in confirmation mode', () => {
  it('runs a harmless command without asking and holds a force push to main, rated on its action event', async () => {
    const { asked, actions, records } = await confirmRun([terminal('echo harmless && ls'), terminal('git push --force origin main')], 'policy');
    expect(asked).toEqual([
      expect.objectContaining({ toolName: 'terminal', summary: '$ git push --force origin main', securityRisk: 'HIGH', securityReason: 'force push to main' }),
    ]);
    expect(actions.map((data) => [data.security_risk, data.security_risk_reason])).toEqual([
      ['LOW', 'no rule applies'],
      ['HIGH', 'force push to main'],
    ]);
    expect(records.map((entry) => entry.event.kind)).toEqual(['ActionEvent', 'ObservationEvent', 'ActionEvent', 'UserRejectObservation', 'MessageEvent']);
    expect(toolResultsSeen(harness.llm.requests[1]!.body)[0]).toContain('harmless');
  });

  it('without an analyzer, every action that changes something is held, unrated', async () => {
    const { asked, actions } = await confirmRun([terminal('echo harmless'), terminal('git push --force origin main')], null);
    expect(asked.map((action) => [action.summary, action.securityRisk])).toEqual([
      ['$ echo harmless', undefined],
      ['$ git push --force origin main', undefined],
    ]);
    expect(actions.map((data) => data.security_risk)).toEqual(['UNKNOWN', 'UNKNOWN']);
    expect(actions[0]).not.toHaveProperty('security_risk_reason');
  });

  it("holds what the host's threshold says: MEDIUM holds a plain push to main too", async () => {
    const script = [terminal('git push origin main'), terminal('echo fine')];
    expect((await confirmRun(script, 'policy')).asked).toEqual([]);
    const medium = await confirmRun(script, 'policy', { confirmationThreshold: 'MEDIUM' });
    expect(medium.asked.map((action) => [action.securityRisk, action.securityReason])).toEqual([['MEDIUM', 'pushes to main, the default branch']]);
  });

  it('an analyzer nobody registered rates nothing: the run says so and every action is held', async () => {
    const { asked, records } = await confirmRun([terminal('echo harmless')], 'invariant');
    expect(asked).toHaveLength(1);
    expect(records[0]!.event).toMatchObject({ kind: 'agent_event', data: { type: 'security_analyzer_unknown', analyzer: 'invariant' } });
  });
});

describe('the llm analyzer', () => {
  it('asks the model to rate each call that changes something, and holds what it rates HIGH or leaves unrated', async () => {
    const { asked, actions, records } = await confirmRun(
      [
        terminal('echo low', 'LOW'),
        terminal('echo high', 'HIGH'),
        terminal('echo medium', 'medium'),
        terminal('echo unrated'),
        terminal('echo bogus', 'SEVERE'),
      ],
      'llm',
    );
    expect(asked.map((action) => [action.summary, action.securityRisk])).toEqual([
      ['$ echo high', 'HIGH'],
      ['$ echo unrated', 'UNKNOWN'],
      ['$ echo bogus', 'UNKNOWN'],
    ]);
    expect(actions.map((data) => data.security_risk)).toEqual(['LOW', 'HIGH', 'MEDIUM', 'UNKNOWN', 'UNKNOWN']);
    expect(actions[0].security_risk_reason).toBe('the model rates it LOW');
    // The tool never sees the rating; the call as the model made it keeps it (it is replayed so).
    expect(actions[0].action).toEqual({ kind: 'TerminalAction', command: 'echo low' });
    expect(JSON.parse(actions[0].tool_call.function.arguments)).toEqual({ command: 'echo low', security_risk: 'LOW' });
    expect(records.filter((entry) => entry.event.kind === 'ObservationEvent')).toHaveLength(2);

    const request = harness.llm.requests[0]!.body;
    const schemaOf = (name: string) => request.tools.find((tool: any) => tool.function.name === name).function.parameters;
    expect(schemaOf('terminal').required).toEqual(['command', 'security_risk']);
    expect(schemaOf('terminal').properties.security_risk).toMatchObject({ type: 'string', enum: ['LOW', 'MEDIUM', 'HIGH'] });
    expect(schemaOf('file_editor').required).toContain('security_risk');
    // Tools that change nothing are not rated.
    expect(schemaOf('think').properties).not.toHaveProperty('security_risk');
    expect(JSON.stringify(request.messages[0])).toContain('SECURITY_RISK_ASSESSMENT');
    // The model is shown its own calls as it made them.
    expect(JSON.stringify(harness.llm.requests[1]!.body.messages)).toContain('security_risk');
  });

  it('leaves the tools and the prompt alone without it', async () => {
    await confirmRun([terminal('echo x')], 'policy');
    const request = harness.llm.requests[0]!.body;
    expect(JSON.stringify(request.tools)).not.toContain('security_risk');
    expect(JSON.stringify(request.messages[0])).not.toContain('SECURITY_RISK_ASSESSMENT');
  });
});

describe('analyzers a host registers', () => {
  it('are named in the setting, listed by the runner, and a failing one holds the action', async () => {
    const seen: string[] = [];
    const options = {
      securityAnalyzers: {
        strict: {
          rate: (action: { toolName: string }) => {
            seen.push(action.toolName);
            return { risk: 'HIGH' as const, reason: 'everything is risky' };
          },
        },
        broken: {
          rate: () => {
            throw new Error('no answer');
          },
        },
      },
    };
    expect(createLlmAgentRunner(options).securityAnalyzers).toEqual(['llm', 'policy', 'strict', 'broken']);
    const strict = await confirmRun([terminal('echo one')], 'strict', options);
    expect(strict.asked.map((action) => action.securityReason)).toEqual(['everything is risky']);
    expect(seen).toEqual(['terminal']);
    const broken = await confirmRun([terminal('echo one')], 'broken', options);
    expect(broken.asked.map((action) => [action.securityRisk, action.securityReason])).toEqual([['UNKNOWN', 'the security analyzer failed: no answer']]);
  });

  it('refuses a threshold that is not a level', () => {
    expect(() => createLlmAgentRunner({ confirmationThreshold: 'SOMETIMES' as never })).toThrow('confirmationThreshold must be LOW, MEDIUM or HIGH');
  });
});

describe('the security_risk argument', () => {
  it('is added to an object schema as a required enum, not to one that has its own', () => {
    expect(withRiskArgument({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toMatchObject({
      properties: { a: { type: 'string' }, security_risk: { enum: ['LOW', 'MEDIUM', 'HIGH'] } },
      required: ['a', 'security_risk'],
    });
    expect(withRiskArgument({ type: 'object', properties: { security_risk: { type: 'number' } } })).toBeNull();
    expect(withRiskArgument({ type: 'array' })).toBeNull();
  });

  it('is taken off the arguments, its value the rating (missing or invalid: none)', () => {
    expect(takeModelRisk({ command: 'ls', security_risk: 'high' })).toEqual({ args: { command: 'ls' }, modelRisk: 'HIGH' });
    expect(takeModelRisk({ command: 'ls', security_risk: 3 })).toEqual({ args: { command: 'ls' }, modelRisk: null });
    expect(takeModelRisk({ command: 'ls' })).toEqual({ args: { command: 'ls' }, modelRisk: null });
    expect(takeModelRisk('text')).toEqual({ args: 'text', modelRisk: null });
  });
});
