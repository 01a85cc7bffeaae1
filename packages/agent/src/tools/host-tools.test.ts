/**
 * The GitHub tools, driven through the agent by the scripted model: offered only when the run has
 * `githubTools`, their calls reach the port (a fake here: core implements the real one), refusals
 * come back to the model, bad input never reaches the port, and their events rebuild on resume.
 */
import { PlatformError, type AgentGitHubTools, type ConversationEvent } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness, toolResultsSeen, type AgentRunResult } from '../../test-support/agent-harness.js';
import { systemPrompt } from '../run/prompt.js';
import { hostTools } from './host-tools.js';

const harness = new AgentHarness();
beforeAll(async () => {
  await harness.startLlm();
});
afterAll(() => harness.close());

type Call = { method: 'comment' | 'addLabels' | 'createPullRequest'; input: unknown };

/** The port, recording its calls; `refuse` makes a method throw as core does. */
function fakeGitHub(refuse: Partial<Record<Call['method'], PlatformError>> = {}): AgentGitHubTools & { calls: Call[] } {
  const calls: Call[] = [];
  const answer = <T>(method: Call['method'], input: unknown, result: T): Promise<T> => {
    calls.push({ method, input });
    const refusal = refuse[method];
    return refusal ? Promise.reject(refusal) : Promise.resolve(result);
  };
  return {
    calls,
    repositories: ['acme/app', 'acme/lib'],
    thread: { repository: 'acme/app', number: 12 },
    comment: (input) => answer('comment', input, { id: 901, url: 'https://github.com/acme/app/issues/12#issuecomment-901' }),
    addLabels: (input) => answer('addLabels', input, { labels: ['bug', ...input.labels] }),
    createPullRequest: (input) => answer('createPullRequest', input, { number: 13, url: 'https://github.com/acme/app/pull/13' }),
  };
}

const finish = { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };
const toolNames = (body: any): string[] => body.tools.map((tool: any) => tool.function.name);
const toolOf = (body: any, name: string): any => body.tools.find((tool: any) => tool.function.name === name).function;
const dataOf = (records: AgentRunResult['records'], index: number): any => records[index]!.event.data;

describe('the GitHub tools', () => {
  it('comments through the port, with OpenHands events and the answer as JSON for the model', async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'github_comment', arguments: { body: 'Looks like a race in the cache.' } }] }, finish] });
    const github = fakeGitHub();
    const { records, outcome } = await harness.run({ githubTools: github });
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'done' });
    expect(github.calls).toEqual([{ method: 'comment', input: { body: 'Looks like a race in the cache.' } }]);

    expect(records[0]!.event).toMatchObject({
      kind: 'ActionEvent',
      message: 'comment on acme/app#12',
      data: { tool_name: 'github_comment', action: { kind: 'GitHubToolAction', body: 'Looks like a race in the cache.' } },
    });
    expect(records[1]!.event).toMatchObject({
      kind: 'ObservationEvent',
      data: { tool_name: 'github_comment', action_id: records[0]!.id, observation: { kind: 'GitHubToolObservation', is_error: false } },
    });
    const answer = JSON.parse(dataOf(records, 1).observation.content[0].text);
    expect(answer).toEqual({ id: 901, url: 'https://github.com/acme/app/issues/12#issuecomment-901' });

    // The model was offered the tools, told the defaults, and saw the answer.
    const [first, second] = harness.llm.requests;
    expect(toolNames(first!.body)).toEqual(['terminal', 'file_editor', 'think', 'finish', 'github_comment', 'github_add_labels', 'create_pull_request']);
    const comment = toolOf(first!.body, 'github_comment');
    expect(comment.description).toContain('acme/app, acme/lib');
    expect(comment.description).toContain('acme/app#12');
    expect(toolOf(first!.body, 'create_pull_request').parameters.required).toEqual(['title', 'head']);
    expect(JSON.stringify(first!.body.messages[0])).toContain('github_comment');
    expect(toolResultsSeen(second!.body)[0]).toContain('issuecomment-901');
  });

  it('labels and opens a pull request with the arguments the model gave', async () => {
    await harness.startLlm({
      turns: [
        {
          toolCalls: [
            { name: 'github_add_labels', arguments: { labels: ['triage'], repository: 'acme/lib', number: 4 } },
            { name: 'create_pull_request', arguments: { title: 'Fix the race', head: 'agent/fix-race', draft: true } },
          ],
        },
        finish,
      ],
    });
    const github = fakeGitHub();
    const { records } = await harness.run({ githubTools: github });
    expect(github.calls).toEqual([
      { method: 'addLabels', input: { labels: ['triage'], repository: 'acme/lib', number: 4 } },
      { method: 'createPullRequest', input: { title: 'Fix the race', head: 'agent/fix-race', draft: true } },
    ]);
    expect(records.map((entry) => entry.event.message).slice(0, 4)).toEqual([
      'label acme/lib#4 triage',
      JSON.stringify({ labels: ['bug', 'triage'] }, null, 2),
      'open pull request in acme/app "Fix the race"',
      JSON.stringify({ number: 13, url: 'https://github.com/acme/app/pull/13' }, null, 2),
    ]);
  });

  it("a refusal by the port comes back to the model as an error result with the port's reason", async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'github_comment', arguments: { body: 'hi', repository: 'x/y', number: 1 } }] }, finish] });
    const github = fakeGitHub({ comment: new PlatformError('VALIDATION_FAILED', 'repository x/y is not one this run may act on') });
    const { records, outcome } = await harness.run({ githubTools: github });
    expect(outcome.status).toBe('COMPLETED');
    expect(github.calls).toHaveLength(1);
    expect(records[1]!.event).toMatchObject({ kind: 'ObservationEvent', data: { observation: { kind: 'GitHubToolObservation', is_error: true } } });
    expect(toolResultsSeen(harness.llm.requests[1]!.body)[0]).toContain('refused (VALIDATION_FAILED): repository x/y is not one this run may act on');
  });

  it('bad input (no labels) is refused by the schema before the port is called', async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'github_add_labels', arguments: { labels: [] } }] }, finish] });
    const github = fakeGitHub();
    const { records } = await harness.run({ githubTools: github });
    expect(github.calls).toEqual([]);
    expect(records[1]!.event.kind).toBe('AgentErrorEvent');
    expect(dataOf(records, 1).error).toMatch(/^invalid arguments: labels:/);
    expect(toolResultsSeen(harness.llm.requests[1]!.body)[0]).toContain('invalid arguments: labels:');
  });

  it('in confirmation mode are held for approval: a rejected call never reaches the port', async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'create_pull_request', arguments: { title: 'Fix', head: 'agent/fix' } }] }, finish] });
    const github = fakeGitHub();
    const asked: (string | null)[] = [];
    const { records } = await harness.run({
      githubTools: github,
      settings: harness.settings({ confirmationMode: true }),
      confirm: async (action) => {
        asked.push(action.summary);
        return { accept: false, reason: 'not yet' };
      },
    });
    expect(asked).toEqual(['open pull request in acme/app "Fix"']);
    expect(github.calls).toEqual([]);
    expect(records[1]!.event.kind).toBe('UserRejectObservation');
  });

  it('are absent without githubTools', async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'github_comment', arguments: { body: 'hi' } }] }, finish] });
    const { records } = await harness.run({});
    const names = toolNames(harness.llm.requests[0]!.body);
    expect(names).not.toContain('github_comment');
    expect(names).not.toContain('github_add_labels');
    expect(names).not.toContain('create_pull_request');
    expect(JSON.stringify(harness.llm.requests[0]!.body.messages[0])).not.toContain('github_comment');
    expect(dataOf(records, 1).error).toContain('There is no tool named "github_comment"');
  });

  it('a stored call and its observation rebuild on resume: the model sees them, the port is not called again', async () => {
    await harness.startLlm({ turns: [{ toolCalls: [{ name: 'github_comment', arguments: { body: 'first attempt' } }] }, { error: { status: 401 } }] });
    const github = fakeGitHub();
    const first = await harness.run({ githubTools: github });
    expect(first.outcome.status).toBe('FAILED');
    const stored: ConversationEvent[] = [
      {
        id: 'evt_task',
        conversation_id: 'conv-test',
        seq: 0,
        kind: 'message',
        source: 'user',
        message: 'Do the task.',
        data: null,
        created_at: '2026-01-01T00:00:00Z',
      },
      ...first.records.map((entry, index) => ({
        ...(JSON.parse(JSON.stringify(entry.event)) as Omit<ConversationEvent, 'id' | 'conversation_id' | 'seq' | 'created_at'>),
        id: entry.id ?? `evt_${index}`,
        conversation_id: 'conv-test',
        seq: index + 1,
        created_at: '2026-01-01T00:00:01Z',
      })),
    ];

    await harness.startLlm({ turns: [finish] });
    const { outcome } = await harness.run({ githubTools: github, history: stored, resumed: { attempt: 2 } });
    expect(outcome.status).toBe('COMPLETED');
    expect(github.calls).toHaveLength(1);
    const messages = harness.llm.requests[0]!.body.messages as any[];
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(assistant.tool_calls[0].function).toEqual({ name: 'github_comment', arguments: JSON.stringify({ body: 'first attempt' }) });
    expect(toolResultsSeen(harness.llm.requests[0]!.body)[0]).toContain('issuecomment-901');
  });
});

describe('the tools of other hosts', () => {
  const fail = () => Promise.reject(new Error('not called'));
  it('are named by host, and only those the host has are offered', () => {
    const gitlab = hostTools({
      host: 'gitlab',
      repositories: ['acme/platform/api'],
      thread: { repository: 'acme/platform/api', number: 7 },
      comment: fail,
      addLabels: fail,
      createPullRequest: fail,
    });
    expect(gitlab.map((tool) => tool.name)).toEqual(['gitlab_comment', 'gitlab_add_labels', 'create_merge_request']);
    expect(gitlab.map((tool) => tool.actionKind)).toEqual(['HostToolAction', 'HostToolAction', 'HostToolAction']);
    expect(gitlab[2]!.description).toContain('GitLab merge request');

    const bitbucket = hostTools({ host: 'bitbucket', repositories: ['acme/app'], thread: null, comment: fail, createPullRequest: fail });
    expect(bitbucket.map((tool) => tool.name)).toEqual(['bitbucket_comment', 'create_pull_request']);

    const slack = hostTools({ host: 'slack', repositories: [], thread: null, comment: fail });
    expect(slack.map((tool) => tool.name)).toEqual(['slack_reply']);
    expect(slack[0]!.prepare({ body: 'done: see the pull request' }).ok).toBe(true);
  });

  it('the model is told of them by name', () => {
    expect(systemPrompt('/w', ['terminal', 'file_editor', 'gitlab_comment', 'create_merge_request'], null)).toContain(
      "You can act on GitLab in this run's repositories with gitlab_comment, create_merge_request (commit and push your branch before you open a merge request from it).",
    );
    expect(systemPrompt('/w', ['terminal', 'slack_reply'], null)).toContain('with slack_reply');
  });
});
