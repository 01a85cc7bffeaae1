/**
 * GitLab on the answer-back port, through the real `@gitbeaker/rest`, against a GitLab stand-in
 * that checks every request against GitLab's description of the operation: the thread of each
 * kind of event, 👀 on what asked, the run's note (a reply in the discussion where one asked in
 * a discussion), edited in place, found again by its marker; a member's access level; GitLab's
 * refusals as `GitLabError`s with the status and never the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitLabApi, type GitLabApi as GitLabStandIn } from '@agent-platform/testing/gitlab-api';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { AnswerChannel, AnswerThread } from '../ports/answer-host.js';
import { HostError } from '../ports/answer-host.js';
import { createGitLabAnswerHost, gitlabAnswerThread, isGitLabSource } from './gitlab-answer-host.js';
import { createGitLabApi, GitLabError, gitlabApiBaseUrl, gitlabWebRoot } from './gitlab-api.js';
import { createGitLabRoleLookup, roleOfAccessLevel } from './gitlab-roles.js';

const TOKEN = 'glpat-answer-host-test-5e1d';
const READ_ONLY = 'glpat-answer-host-read-only-77aa';
const PROJECT = 'acme/platform/app';

let gitlab: GitLabStandIn;

const settingsWith = (gitlabToken: { token: string; host: string | null } | null): AgentSettings =>
  ({ providerTokens: gitlabToken ? { gitlab: gitlabToken } : {} }) as unknown as AgentSettings;

const project = () => ({ id: gitlab.state.project(PROJECT)?.id, path_with_namespace: PROJECT, web_url: `${gitlab.url}/${PROJECT}` });

/** A note event as GitLab sends it (`object_kind: note`). */
function notePayload(on: { issue: number } | { mergeRequest: number }, note: { id: number; discussionId: string; type?: string | null; body?: string }) {
  const noteable =
    'issue' in on
      ? { issue: { iid: on.issue, title: 'Crash on start', description: 'It crashes.' } }
      : { merge_request: { iid: on.mergeRequest, title: 'Add cache', description: 'Faster.' } };
  return {
    object_kind: 'note',
    event_type: 'note',
    user: { id: 7, username: 'carol', name: 'Carol' },
    project: project(),
    object_attributes: {
      id: note.id,
      note: note.body ?? '@agent fix this',
      noteable_type: 'issue' in on ? 'Issue' : 'MergeRequest',
      discussion_id: note.discussionId,
      type: note.type ?? null,
      action: 'create',
    },
    ...noteable,
  };
}

function channelFor(thread: AnswerThread, token = TOKEN): AnswerChannel {
  const channel = createGitLabAnswerHost().channel(thread, { userId: 'alice', settings: settingsWith({ token, host: gitlab.url }) });
  if ('none' in channel) throw new Error(channel.none);
  return channel;
}

const threadOf = (eventKey: string, payload: unknown): AnswerThread => {
  const found = gitlabAnswerThread(eventKey, payload);
  if ('none' in found) throw new Error(found.none);
  return found.thread;
};

beforeAll(async () => {
  gitlab = await startGitLabApi({ tokens: { [TOKEN]: 'acme-agent', [READ_ONLY]: { username: 'acme-agent', readOnly: [PROJECT] } } });
  gitlab.addProject(PROJECT);
});

afterAll(async () => {
  await gitlab?.close();
});

describe('the GitLab host and its API base', () => {
  it('is gitlab.com without a host, a self-managed GitLab by host name or base URL (a relative URL root too)', () => {
    expect(gitlabApiBaseUrl(null)).toBe('https://gitlab.com/api/v4');
    expect(gitlabApiBaseUrl('gitlab.com')).toBe('https://gitlab.com/api/v4');
    expect(gitlabApiBaseUrl('gitlab.example.com')).toBe('https://gitlab.example.com/api/v4');
    expect(gitlabApiBaseUrl('https://example.com/gitlab/')).toBe('https://example.com/gitlab/api/v4');
    expect(gitlabApiBaseUrl('https://gitlab.example.com/api/v4')).toBe('https://gitlab.example.com/api/v4');
    expect(gitlabWebRoot('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(() => gitlabWebRoot('http://gitlab.example.com')).toThrow(/allowed only for a loopback host; use https/);
    expect(() => gitlabWebRoot('https://user:secret@gitlab.example.com')).toThrow(/must not contain credentials/);
  });

  it('handles sources named gitlab and gitlab-…, nothing else', () => {
    expect(['gitlab', 'gitlab-eu', 'github', 'gitlabby', 'my-gitlab'].map(isGitLabSource)).toEqual([true, true, false, false, false]);
  });
});

describe('the thread of a GitLab event', () => {
  it('is the issue or merge request, labelled group/project#iid or !iid, with its subject', () => {
    const onIssue = threadOf('note.create', notePayload({ issue: 3 }, { id: 41, discussionId: 'd1' }));
    expect(onIssue).toMatchObject({
      host: 'gitlab',
      label: `${PROJECT}#3`,
      repository: PROJECT,
      subject: { title: 'Crash on start', body: 'It crashes.' },
      locator: { project: PROJECT, kind: 'issue', iid: 3, note_id: 41, discussion_id: null },
    });
    expect(threadOf('note.create', notePayload({ mergeRequest: 5 }, { id: 42, discussionId: 'd2' }))).toMatchObject({
      label: `${PROJECT}!5`,
      locator: { kind: 'merge_request', note_id: 42 },
    });
    const opened = threadOf('merge_request.open', {
      object_kind: 'merge_request',
      project: project(),
      object_attributes: { iid: 9, title: 'Add cache', description: '', action: 'open' },
    });
    expect(opened).toMatchObject({
      label: `${PROJECT}!9`,
      subject: { title: 'Add cache', body: '' },
      locator: { kind: 'merge_request', iid: 9, note_id: null },
    });
    expect(threadOf('issue.open', { object_kind: 'issue', project: project(), object_attributes: { iid: 4, title: 'Slow', action: 'open' } })).toMatchObject({
      label: `${PROJECT}#4`,
    });
  });

  it('is the discussion of a note written in one (a thread, a diff line), answered there', () => {
    expect(threadOf('note.create', notePayload({ mergeRequest: 5 }, { id: 43, discussionId: 'abc', type: 'DiffNote' })).locator).toMatchObject({
      discussion_id: 'abc',
    });
    expect(threadOf('note.create', notePayload({ issue: 3 }, { id: 44, discussionId: 'def', type: 'DiscussionNote' })).locator).toMatchObject({
      discussion_id: 'def',
    });
  });

  it('is none for a push, a note on a commit or snippet, a payload without a project', () => {
    expect(gitlabAnswerThread('push', { object_kind: 'push', project: project() })).toEqual({
      none: 'a GitLab push event has no issue or merge request to answer in',
    });
    const onCommit = { object_kind: 'note', project: project(), object_attributes: { id: 1, noteable_type: 'Commit' }, commit: { id: 'abc' } };
    expect(gitlabAnswerThread('note.create', onCommit)).toEqual({ none: 'a GitLab note on a commit has no issue or merge request to answer in' });
    expect(gitlabAnswerThread('issue.open', { object_kind: 'issue' })).toEqual({ none: 'the GitLab event names no project' });
    // A delivery recorded without an event key is named from its payload.
    expect(gitlabAnswerThread(null, { object_kind: 'issue', project: project(), object_attributes: { iid: 4, title: 'Slow' } })).toMatchObject({
      thread: { label: `${PROJECT}#4` },
    });
  });
});

describe('answering in a GitLab thread', () => {
  it('says why it cannot without a GitLab token, or with a host that is no URL', () => {
    const thread = threadOf('issue.open', { object_kind: 'issue', project: project(), object_attributes: { iid: 1, title: 'x' } });
    expect(createGitLabAnswerHost().channel(thread, { userId: 'alice', settings: settingsWith(null) })).toEqual({
      none: "no GitLab token is stored for the automation's owner (alice); store one in their settings",
    });
    expect(
      createGitLabAnswerHost().channel(thread, { userId: 'alice', settings: settingsWith({ token: TOKEN, host: 'http://gitlab.example.com' }) }),
    ).toMatchObject({
      none: expect.stringContaining('allowed only for a loopback host'),
    });
  });

  it('awards 👀 on the note that asked, posts the run’s note on the issue, edits it, finds it by its marker', async () => {
    const issue = gitlab.addIssue(PROJECT, { title: 'Crash on start' });
    const asked = gitlab.addNote(PROJECT, { issue }, { body: '@agent fix this', author: 'carol' });
    const channel = channelFor(threadOf('note.create', notePayload({ issue }, asked)));

    await channel.acknowledge();
    // Awarded already (a retried start): done, not an error.
    await channel.acknowledge();
    expect(gitlab.awards(PROJECT, { issue }, asked.id).map((award) => [award.name, award.user.username])).toEqual([['eyes', 'acme-agent']]);

    const posted = await channel.post('On it.\n\n<!-- agent-platform run:r1 -->');
    expect(posted.url).toBe(`${gitlab.url}/${PROJECT}/-/issues/${issue}#note_${posted.id}`);
    const edited = await channel.edit(posted.id, 'Done.\n\n<!-- agent-platform run:r1 -->');
    expect(edited).toEqual(posted);
    const notes = gitlab.notes(PROJECT, { issue });
    expect(notes.map((note) => [note.author.username, note.body, note.type])).toEqual([
      ['carol', '@agent fix this', null],
      ['acme-agent', 'Done.\n\n<!-- agent-platform run:r1 -->', null],
    ]);
    expect(await channel.find('<!-- agent-platform run:r1 -->', new Date(Date.now() - 60_000).toISOString())).toEqual(posted);
    expect(await channel.find('<!-- agent-platform run:r2 -->', new Date(Date.now() - 60_000).toISOString())).toBeNull();
    expect(await channel.find('<!-- agent-platform run:r1 -->', new Date(Date.now() + 60_000).toISOString())).toBeNull();

    // A note someone deleted: nothing to edit.
    gitlab.state.notes.delete(Number(posted.id));
    expect(await channel.edit(posted.id, 'again')).toBeNull();
    expect(gitlab.violations).toEqual([]);
  });

  it('answers a note written in a discussion by a reply in it, on a merge request', async () => {
    const request = gitlab.addMergeRequest(PROJECT, { sourceBranch: 'feature', title: 'Add cache' });
    const diffNote = gitlab.addNote(PROJECT, { mergeRequest: request }, { body: '@agent why?', author: 'carol', type: 'DiffNote' });
    const channel = channelFor(threadOf('note.create', notePayload({ mergeRequest: request }, { ...diffNote, type: 'DiffNote' })));
    await channel.acknowledge();
    const reply = await channel.post('Because of the cache.');
    expect(reply.url).toBe(`${gitlab.url}/${PROJECT}/-/merge_requests/${request}#note_${reply.id}`);
    const notes = gitlab.notes(PROJECT, { mergeRequest: request });
    expect(notes.map((note) => [note.body, note.discussionId === diffNote.discussionId])).toEqual([
      ['@agent why?', true],
      ['Because of the cache.', true],
    ]);
    expect(gitlab.awards(PROJECT, { mergeRequest: request }, diffNote.id).map((award) => award.name)).toEqual(['eyes']);
    expect(gitlab.requests.some((r) => r.operationId === 'postApiV4ProjectsIdMergeRequestsNoteableIdDiscussionsDiscussionIdNotes' && r.status === 201)).toBe(
      true,
    );
    expect(gitlab.violations).toEqual([]);
  });

  it('asks for approval on a merge request with the mention first (a bare /approve is GitLab’s own quick action there), on an issue as written', async () => {
    const howTo = 'Reply `/approve` to let it, or `/reject` with a reason to refuse.';
    const held = { runId: 'run_1', actionId: 'evt_1', mention: '@agent' };
    const request = gitlab.addMergeRequest(PROJECT, { sourceBranch: 'held', title: 'Held' });
    const onRequest = channelFor(
      threadOf('merge_request.open', { object_kind: 'merge_request', project: project(), object_attributes: { iid: request, title: 'Held' } }),
    );
    await onRequest.askApproval?.(`May I run it?\n\n${howTo}`, held);
    expect(gitlab.notes(PROJECT, { mergeRequest: request }).map((note) => note.body)).toEqual([
      'May I run it?\n\nReply `@agent /approve` to let it, or `@agent /reject` with a reason to refuse.',
    ]);
    const issue = gitlab.addIssue(PROJECT, { title: 'Held too' });
    const asked = gitlab.addNote(PROJECT, { issue }, { body: '@agent deploy', author: 'carol' });
    await channelFor(threadOf('note.create', notePayload({ issue }, asked))).askApproval?.(howTo, held);
    expect(gitlab.notes(PROJECT, { issue }).map((note) => note.body)).toEqual(['@agent deploy', howTo]);
    expect(gitlab.violations).toEqual([]);
  });

  it('awards 👀 on a merge request a new one opened, and on an issue', async () => {
    const request = gitlab.addMergeRequest(PROJECT, { sourceBranch: 'other', title: 'Other' });
    await channelFor(
      threadOf('merge_request.open', { object_kind: 'merge_request', project: project(), object_attributes: { iid: request, title: 'Other' } }),
    ).acknowledge();
    expect(gitlab.awards(PROJECT, { mergeRequest: request }).map((award) => award.name)).toEqual(['eyes']);
    const issue = gitlab.addIssue(PROJECT, { title: 'Slow' });
    await channelFor(threadOf('issue.open', { object_kind: 'issue', project: project(), object_attributes: { iid: issue, title: 'Slow' } })).acknowledge();
    expect(gitlab.awards(PROJECT, { issue }).map((award) => award.name)).toEqual(['eyes']);
    expect(gitlab.violations).toEqual([]);
  });

  it('turns GitLab’s refusals into GitLabErrors with the status and GitLab’s words, never the token', async () => {
    const issue = gitlab.addIssue(PROJECT, { title: 'Locked' });
    const thread = threadOf('issue.open', { object_kind: 'issue', project: project(), object_attributes: { iid: issue, title: 'Locked' } });
    const refused = await channelFor(thread, READ_ONLY)
      .post('hello')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GitLabError);
    expect(refused).toBeInstanceOf(HostError);
    expect(refused).toMatchObject({ host: 'gitlab', status: 403, transient: false });
    expect((refused as Error).message).toBe(
      "GitLab answered 403: 403 Forbidden (the token's user may lack access to this project, or the token the api scope)",
    );

    const bad = await channelFor(thread, 'glpat-not-a-token-at-all')
      .acknowledge()
      .catch((error: unknown) => error);
    expect(bad).toMatchObject({ status: 401, message: 'GitLab answered 401: 401 Unauthorized (the stored GitLab token was refused: expired or revoked?)' });
    expect((bad as Error).message).not.toContain('glpat-not-a-token-at-all');

    const missing = await createGitLabApi(TOKEN, gitlab.url)
      .createNote('acme/nowhere', { kind: 'issue', iid: 1 }, 'x')
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, message: expect.stringContaining('GitLab answered 404: 404 Project Not Found') });
  });

  it('says GitLab could not be reached when nothing answers (a transient failure)', async () => {
    const closed = await startGitLabApi();
    const url = closed.url;
    await closed.close();
    const error = await createGitLabApi(TOKEN, url)
      .awardEmoji(PROJECT, { kind: 'issue', iid: 1 }, null, 'eyes')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitLabError);
    expect(error).toMatchObject({ status: null, transient: true, message: 'GitLab could not be reached: ECONNREFUSED' });
  });
});

describe('the agent’s tools on GitLab, from the host', () => {
  it('are in the event’s thread and projects (a clone URL read as its path), with the owner’s token; none without one', async () => {
    const request = gitlab.addMergeRequest(PROJECT, { sourceBranch: 'tools', title: 'Tools' });
    const thread = threadOf('merge_request.open', { object_kind: 'merge_request', project: project(), object_attributes: { iid: request, title: 'Tools' } });
    const told: unknown[] = [];
    const input = {
      thread,
      repositories: [PROJECT, 'https://gitlab.example.com/acme/lib.git', PROJECT],
      pullRequest: null,
      onPullRequest: async () => {},
      onThreadAction: async (action: unknown) => void told.push(action),
    };
    const host = createGitLabAnswerHost();
    expect(host.agentTools?.({ ...input, owner: { userId: 'bob', settings: settingsWith(null) } })).toBeNull();
    const tools = host.agentTools?.({ ...input, owner: { userId: 'alice', settings: settingsWith({ token: TOKEN, host: gitlab.url }) } });
    expect(tools).toMatchObject({
      host: 'gitlab',
      repositories: [PROJECT, 'acme/lib'],
      thread: { repository: PROJECT, number: request, kind: 'merge_request' },
    });
    await tools?.addLabels?.({ labels: ['agent'] });
    expect(gitlab.labels(PROJECT, { mergeRequest: request })).toEqual(['agent']);
    expect(told).toEqual([{ type: 'labels', repository: PROJECT, number: request, labels: ['agent'] }]);
    expect(gitlab.violations).toEqual([]);
  });
});

describe('a member’s access level', () => {
  it('is GitLab’s level for a member (inherited ones included), 0 for anyone else', async () => {
    const writer = gitlab.addUser('dave');
    const reporter = gitlab.addUser('erin');
    const stranger = gitlab.addUser('mallory');
    gitlab.addMember(PROJECT, 'dave', 30);
    gitlab.addMember(PROJECT, 'erin', 20);
    const api = createGitLabApi(TOKEN, gitlab.url);
    expect(await api.accessLevelOf(PROJECT, writer)).toBe(30);
    expect(await api.accessLevelOf(PROJECT, reporter)).toBe(20);
    expect(await api.accessLevelOf(PROJECT, stranger)).toBe(0);
    expect(gitlab.requests.filter((r) => r.operationId === 'getApiV4ProjectsIdMembersAllUserId').map((r) => r.path)).toEqual([
      `/projects/acme%2Fplatform%2Fapp/members/all/${writer}`,
      `/projects/acme%2Fplatform%2Fapp/members/all/${reporter}`,
      `/projects/acme%2Fplatform%2Fapp/members/all/${stranger}`,
    ]);
    expect(gitlab.violations).toEqual([]);
  });

  it('is a role for who may command the agent: Developer and up write; asked with the owner’s token, refused without one', async () => {
    expect([50, 40, 30, 20, 15, 10, 5, 0].map(roleOfAccessLevel)).toEqual(['admin', 'maintain', 'write', 'triage', 'triage', 'read', 'none', 'none']);
    const frank = gitlab.addUser('frank');
    gitlab.addMember(PROJECT, 'frank', 40);
    const lookup = createGitLabRoleLookup({ settingsOf: async (userId) => settingsWith(userId === 'alice' ? { token: TOKEN, host: gitlab.url } : null) });
    expect(await lookup('alice', PROJECT, { login: 'frank', id: String(frank) })).toBe('maintain');
    await expect(lookup('alice', PROJECT, { login: 'frank', id: null })).rejects.toThrow('the event names no GitLab user id for @frank');
    await expect(lookup('bob', PROJECT, { login: 'frank', id: String(frank) })).rejects.toThrow("no GitLab token is stored for the automation's owner (bob)");
  });
});
