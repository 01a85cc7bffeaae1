/**
 * GitHub's agent tools on the answer-back port, as the other hosts' are: in the event's thread and
 * repository with the automation's besides (`selected_repository`, `github_repositories`); for a
 * run of no host's thread (a manual dispatch, a push) only the automation's GitHub repositories;
 * none without a token or a GitHub repository to reach. Through the real `@octokit/rest`, against
 * the GitHub stand-in that checks every request against GitHub's description.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubApi, type GitHubApi as GitHubStandIn } from '@agent-platform/testing/github-api';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { AnswerThread, HostThreadAction, HostToolsInput, OpenedChangeRequest } from '../ports/answer-host.js';
import { createGitHubAnswerHost } from './github-answer-host.js';

const TOKEN = 'ghp_answer_host_tools_test_7c1d';

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubApi({ tokens: { [TOKEN]: 'acme-agent' } });
  github.addRepository('acme/app');
  github.addRepository('acme/docs');
});
afterAll(async () => {
  await github?.close();
});

const settings = (token: string | null): AgentSettings =>
  ({ providerTokens: token ? { github: { token, host: github.url } } : {} }) as unknown as AgentSettings;

function threadOf(issue: number, comment: number): AnswerThread {
  const payload = {
    action: 'created',
    repository: { full_name: 'acme/app' },
    issue: { number: issue, title: 'Crash', body: 'It crashes.' },
    comment: { id: comment, body: '@agent fix', user: { login: 'carol' } },
    sender: { login: 'carol', type: 'User' },
  };
  const found = createGitHubAnswerHost().threadOf('issue_comment.created', payload);
  if ('none' in found) throw new Error(found.none);
  return found.thread;
}

describe("the agent's GitHub tools, from the host", () => {
  const told: HostThreadAction[] = [];
  const opened: OpenedChangeRequest[] = [];
  const input = (thread: AnswerThread | null, token: string | null, more: Partial<HostToolsInput> = {}): HostToolsInput => ({
    thread,
    repositories: thread ? ['acme/app'] : [],
    owner: { userId: 'alice', settings: settings(token) },
    pullRequest: null,
    onPullRequest: async (one) => void opened.push(one),
    onThreadAction: async (action) => void told.push(action),
    ...more,
  });
  const host = createGitHubAnswerHost();

  it("are in the event's thread and repository, then the automation's, with the owner's token; none without one", async () => {
    const issue = github.addIssue('acme/app', { title: 'Crash' });
    const thread = threadOf(issue, github.addIssueComment('acme/app', issue, { body: '@agent fix', user: 'carol' }));
    expect(host.agentTools?.(input(thread, null))).toBeNull();
    const tools = host.agentTools?.(
      input(thread, TOKEN, { repositories: ['acme/app', 'https://github.com/acme/lib.git'], automation: { github_repositories: ['ACME/app', 'acme/docs'] } }),
    );
    expect(tools).toMatchObject({ host: 'github', repositories: ['acme/app', 'acme/lib', 'acme/docs'], thread: { repository: 'acme/app', number: issue } });
    const posted = await tools?.comment({ body: 'Found it.' });
    expect(github.comments('acme/app', issue).map((one) => one.body)).toEqual(['@agent fix', expect.stringContaining('Found it.')]);
    expect(told).toEqual([{ type: 'comment', repository: 'acme/app', number: issue, url: posted?.url }]);
    await expect(tools?.comment({ body: 'elsewhere', repository: 'evil/repo', number: 1 })).rejects.toThrow('not one this run may act on');
    expect(github.violations).toEqual([]);
  });

  it("for a run of no host's thread: the automation's GitHub repositories alone, and none when it names none", async () => {
    const tools = host.agentTools?.(input(null, TOKEN, { repositories: ['acme/docs'], automation: { github_repositories: [] } }));
    expect(tools).toMatchObject({ host: 'github', repositories: ['acme/docs'], thread: null });
    await expect(tools?.comment({ body: 'Which one?' })).rejects.toThrow('name the issue or pull request');
    const issue = github.addIssue('acme/docs', { title: 'Docs' });
    await tools?.comment({ body: 'Updated the docs.', number: issue });
    expect(github.comments('acme/docs', issue).map((one) => one.body)).toEqual([expect.stringContaining('Updated the docs.')]);
    // A GitLab project's path or clone URL is not a GitHub repository.
    expect(host.agentTools?.(input(null, TOKEN, { repositories: ['https://gitlab.example.com/group/sub/app.git'] }))).toBeNull();
    expect(host.agentTools?.(input(null, TOKEN))).toBeNull();
    expect(github.violations).toEqual([]);
  });

  it('refuse a second pull request in a thread that has one, before GitHub is asked', async () => {
    const thread = threadOf(github.addIssue('acme/app', { title: 'Fix' }), 1);
    const existing = { repository: 'acme/app', number: 3, url: null, branch: 'agent/fix' };
    const tools = host.agentTools?.(input(thread, TOKEN, { pullRequest: existing }));
    await expect(tools?.createPullRequest?.({ title: 'Again', head: 'agent/other' })).rejects.toThrow('push your commits to its branch agent/fix');
    expect(opened).toEqual([]);
    expect(github.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/pulls'))).toEqual([]);
  });
});
