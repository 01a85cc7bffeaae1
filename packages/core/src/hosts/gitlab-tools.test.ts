/**
 * The agent's GitLab tools through the real `@gitbeaker/rest`, against a GitLab stand-in that
 * checks every request against GitLab's description of the operation, with a real git server
 * behind it for the merge request's branches: comments and labels on the run's issue or merge
 * request, a merge request from the agent's branch into the default branch, the run's scope,
 * input checked before GitLab is asked, GitLab's refusals told without the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitLabApi, type GitLabApi as GitLabStandIn } from '@agent-platform/testing/gitlab-api';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { PlatformError } from '../kernel/errors.js';
import type { AgentThreadAction, OpenedPullRequest } from '../github/github-tools.js';
import { createGitLabAgentTools, gitlabToolScope, type GitLabToolScope } from './gitlab-tools.js';

const TOKEN = 'glpat-tools-test-token-91c2';
const PROJECT = 'acme/app';

let gitlab: GitLabStandIn;
let git: GitServer;

const toolsFor = (scope: Partial<GitLabToolScope> = {}, token = TOKEN) =>
  createGitLabAgentTools({ repositories: [PROJECT], thread: null, ...scope }, { token, host: gitlab.url });

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN, username: 'oauth2' });
  await git.createRepository(PROJECT, { files: { 'README.md': '# app\n' }, branches: { 'agent/fix': { 'fix.txt': 'fixed\n' } } });
  gitlab = await startGitLabApi({ tokens: { [TOKEN]: 'acme-agent' }, git });
  gitlab.addProject(PROJECT);
  gitlab.addProject('acme/locked');
});

afterAll(async () => {
  await gitlab?.close();
  await git?.close();
});

describe('the agent’s GitLab tools', () => {
  it('comment on the run’s issue (marked) and add labels, telling each action', async () => {
    const issue = gitlab.addIssue(PROJECT, { title: 'Crash', labels: ['triage'] });
    const told: AgentThreadAction[] = [];
    const tools = toolsFor({ thread: { repository: PROJECT, number: issue, kind: 'issue' }, onThreadAction: async (action) => void told.push(action) });
    expect(tools.host).toBe('gitlab');
    const posted = await tools.comment({ body: 'Found it: a race in the cache.' });
    expect(posted.url).toBe(`${gitlab.url}/${PROJECT}/-/issues/${issue}#note_${posted.id}`);
    expect(await tools.addLabels({ labels: ['bug', 'cache'] })).toEqual({ labels: ['triage', 'bug', 'cache'] });
    const [note] = gitlab.notes(PROJECT, { issue });
    expect(note?.body).toBe('Found it: a race in the cache.\n\n<!-- agent-platform -->');
    expect(gitlab.labels(PROJECT, { issue })).toEqual(['triage', 'bug', 'cache']);
    expect(told).toEqual([
      { type: 'comment', repository: PROJECT, number: issue, url: posted.url },
      { type: 'labels', repository: PROJECT, number: issue, labels: ['bug', 'cache'] },
    ]);
    // The labels went as GitLab takes them: one comma-separated `add_labels`.
    expect(gitlab.requests.find((r) => r.operationId === 'putApiV4ProjectsIdIssuesIssueIid')?.body).toEqual({ add_labels: 'bug,cache' });
    expect(gitlab.violations).toEqual([]);
  });

  it('name a merge request of the run’s project by its iid in a merge request’s thread, an issue otherwise, or as `kind` says', async () => {
    const request = gitlab.addMergeRequest(PROJECT, { sourceBranch: 'feature-x', title: 'X' });
    const issue = gitlab.addIssue(PROJECT, { title: 'Y' });
    const tools = toolsFor({ thread: { repository: PROJECT, number: request, kind: 'merge_request' } });
    await tools.addLabels({ labels: ['review'] });
    await tools.comment({ number: issue, kind: 'issue', body: 'See the merge request.' });
    expect(gitlab.labels(PROJECT, { mergeRequest: request })).toEqual(['review']);
    expect(gitlab.notes(PROJECT, { issue }).map((note) => note.body)).toEqual(['See the merge request.\n\n<!-- agent-platform -->']);
    expect(gitlab.violations).toEqual([]);
  });

  it('open a merge request from the agent’s branch into the default branch, telling it, and refuse a second one for the thread', async () => {
    const opened: OpenedPullRequest[] = [];
    const tools = toolsFor({ onPullRequest: async (pull) => void opened.push(pull) });
    const result = await tools.createPullRequest({ title: 'Fix the crash', head: 'agent/fix', body: 'Fixes #1.', draft: true });
    const [request] = gitlab.mergeRequests(PROJECT).filter((mr) => mr.sourceBranch === 'agent/fix');
    expect(request).toMatchObject({ title: 'Draft: Fix the crash', targetBranch: 'main', draft: true, description: 'Fixes #1.\n\n<!-- agent-platform -->' });
    expect(result).toEqual({ number: request?.iid, url: `${gitlab.url}/${PROJECT}/-/merge_requests/${request?.iid}` });
    expect(opened).toEqual([{ repository: PROJECT, number: request?.iid, url: result.url, head: 'agent/fix' }]);

    // GitLab's own refusal: the same branch has an open merge request already.
    await expect(toolsFor().createPullRequest({ title: 'Again', head: 'agent/fix' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('GitLab answered 409: ["Another open merge request already exists for this source branch: !'),
    });
    // The thread's own: pushing to it is the way.
    const followUp = toolsFor({ pullRequest: { repository: PROJECT, number: 1, url: null, branch: 'agent/fix' } });
    await expect(followUp.createPullRequest({ title: 'Again', head: 'agent/other' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: "this thread's merge request !1 is open already: push your commits to its branch agent/fix to update it; a second merge request is not opened",
    });
    // A branch the agent never pushed.
    await expect(toolsFor().createPullRequest({ title: 'Ghost', head: 'agent/ghost' })).rejects.toThrow(/GitLab answered 400: .*source_branch.*is invalid/);
    expect(gitlab.violations).toEqual([]);
  });

  it('refuse what is out of the run’s scope or malformed before asking GitLab', async () => {
    const before = gitlab.requests.length;
    const tools = toolsFor({ thread: { repository: PROJECT, number: 1, kind: 'issue' } });
    const refusals = await Promise.all([
      tools.comment({ repository: 'acme/locked', number: 1, body: 'hi' }).catch((e: unknown) => e),
      tools.comment({ repository: 'not a path', body: 'hi' }).catch((e: unknown) => e),
      tools.comment({ body: '   ' }).catch((e: unknown) => e),
      tools.comment({ number: 0, body: 'hi' }).catch((e: unknown) => e),
      tools.addLabels({ labels: ['a,b'] }).catch((e: unknown) => e),
      tools.addLabels({ labels: [] }).catch((e: unknown) => e),
      tools.createPullRequest({ title: 'x', head: '--upload-pack=evil' }).catch((e: unknown) => e),
      toolsFor()
        .comment({ body: 'no thread' })
        .catch((e: unknown) => e),
    ]);
    for (const refusal of refusals) expect(refusal).toBeInstanceOf(PlatformError);
    expect(refusals.map((refusal) => (refusal as PlatformError).message)).toEqual([
      'project acme/locked is not one this run may act on (allowed: acme/app)',
      '"not a path" is not a GitLab project path (group/project)',
      'body must not be empty',
      'number must be a positive integer (an iid)',
      'a GitLab label\'s name cannot hold a comma: "a,b"',
      'labels must hold 1 to 100 names',
      'head must be a branch name, got "--upload-pack=evil"',
      "name the issue or merge request: this run's event is about none in acme/app",
    ]);
    expect(gitlab.requests.length).toBe(before);
  });

  it('tell GitLab’s refusal without the token', async () => {
    const refused = await toolsFor({ thread: { repository: PROJECT, number: 999, kind: 'issue' } })
      .comment({ body: 'hello' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('GitLab answered 404: 404 Issue Not Found') });
    const unauthorized = await toolsFor({ thread: { repository: PROJECT, number: 1, kind: 'issue' } }, 'glpat-wrong-token-0000')
      .comment({ body: 'hello' })
      .catch((e: unknown) => e);
    expect((unauthorized as Error).message).toContain('GitLab answered 401');
    expect((unauthorized as Error).message).not.toContain('glpat-wrong-token-0000');
  });
});

describe('the scope of a run’s GitLab tools', () => {
  const payload = JSON.stringify({
    object_kind: 'note',
    project: { id: 1, path_with_namespace: 'acme/app' },
    object_attributes: { id: 5, noteable_type: 'MergeRequest', discussion_id: 'x', note: '@agent' },
    merge_request: { iid: 7, title: 'Add cache' },
  });

  it('is the event’s project and its issue or merge request, then the automation’s selected repository', () => {
    expect(gitlabToolScope({ selected_repository: 'https://gitlab.example.com/acme/lib.git' }, 'gitlab', 'note.create', payload)).toEqual({
      repositories: ['acme/app', 'acme/lib'],
      thread: { repository: 'acme/app', number: 7, kind: 'merge_request' },
    });
    expect(gitlabToolScope({ selected_repository: 'acme/app' }, 'gitlab-eu', 'note.create', payload).repositories).toEqual(['acme/app']);
    // Not a GitLab event: no thread, the selected repository alone.
    expect(gitlabToolScope({ selected_repository: 'group/sub/project' }, 'github', 'issue_comment.created', payload)).toEqual({
      repositories: ['group/sub/project'],
      thread: null,
    });
    expect(gitlabToolScope({ selected_repository: null }, 'gitlab', 'note.create', 'not json')).toEqual({ repositories: [], thread: null });
  });
});
