import { describe, expect, it } from 'vitest';
import { compileExpression } from '../expressions/jmespath.js';
import { GITLAB_EVENT_KEY_EXPR, gitlabActor, gitlabDeliveryId, gitlabEventKey, gitlabThread } from './gitlab.js';

// Payloads shaped as GitLab's "Webhook events" page shows them, trimmed to what is read.
const project = {
  id: 5,
  name: 'Gitlab Test',
  web_url: 'http://example.com/gitlab-org/gitlab-test',
  path_with_namespace: 'gitlab-org/gitlab-test',
  default_branch: 'master',
};
const user = { id: 1, name: 'Administrator', username: 'root', avatar_url: 'http://www.gravatar.com/avatar/e64c7d89', email: 'admin@example.com' };

const noteOnMergeRequest = {
  object_kind: 'note',
  event_type: 'note',
  user,
  project_id: 5,
  project,
  object_attributes: {
    id: 1244,
    internal: false,
    note: '@agent please fix the failing test',
    noteable_type: 'MergeRequest',
    author_id: 1,
    project_id: 5,
    noteable_id: 7,
    system: false,
    discussion_id: '6a9c1750b37d513a43987b574953fceb50b03ce7',
    action: 'create',
    url: 'http://example.com/gitlab-org/gitlab-test/merge_requests/1#note_1244',
  },
  merge_request: { id: 7, iid: 1, title: 'Tempora et eos debitis quae laborum et.', source_branch: 'master', target_branch: 'markdown', state: 'opened' },
};

/** A note as GitLab before 16.11 sent it: no `action` (notes were sent only when created). */
const noteOnIssueWithoutAction = {
  object_kind: 'note',
  user,
  project_id: 5,
  project,
  object_attributes: { id: 1241, note: 'Hello world', noteable_type: 'Issue', author_id: 1, noteable_id: 92, system: false },
  issue: { id: 92, iid: 17, title: 'test', description: 'test', state: 'closed' },
};

const noteOnCommit = {
  object_kind: 'note',
  user,
  project_id: 5,
  project,
  object_attributes: { id: 1243, note: 'This is a commit comment. How does this work?', noteable_type: 'Commit', action: 'create', system: false },
  commit: { id: 'cfe32cf61b73a0d5e9f13e774abde7ff789b1660', message: 'Add submodule' },
};

const issueOpened = {
  object_kind: 'issue',
  event_type: 'issue',
  user,
  project: { ...project, id: 1, path_with_namespace: 'gitlabhq/gitlab-test' },
  object_attributes: { id: 301, iid: 23, title: 'New API: create/update/delete file', description: '@agent look into this', state: 'opened', action: 'open' },
};

const mergeRequestUpdated = {
  object_kind: 'merge_request',
  event_type: 'merge_request',
  user,
  project: { ...project, id: 1, path_with_namespace: 'gitlabhq/gitlab-test' },
  object_attributes: { id: 99, iid: 1, title: 'MS-Viewport', description: 'old text @agent', state: 'opened', action: 'update' },
};

const push = {
  object_kind: 'push',
  event_name: 'push',
  ref: 'refs/heads/master',
  user_id: 4,
  user_name: 'John Smith',
  user_username: 'jsmith',
  project_id: 15,
  project: { id: 15, path_with_namespace: 'mike/diaspora' },
  commits: [],
  total_commits_count: 0,
};

const pipeline = { object_kind: 'pipeline', object_attributes: { id: 31, iid: 3, status: 'success' }, user, project };
const release = { object_kind: 'release', id: 1, tag: 'v1.1', action: 'create', project };
const emoji = { object_kind: 'emoji', event_type: 'award', user, project, object_attributes: { name: 'thumbsup', awardable_type: 'Note' } };

describe('GitLab events', () => {
  it('names events by object_kind and action, in GitLab’s terms', () => {
    const cases: [unknown, string][] = [
      [noteOnMergeRequest, 'note.create'],
      [{ ...noteOnMergeRequest, object_attributes: { ...noteOnMergeRequest.object_attributes, action: 'update' } }, 'note.update'],
      [noteOnIssueWithoutAction, 'note.create'],
      [issueOpened, 'issue.open'],
      [mergeRequestUpdated, 'merge_request.update'],
      [push, 'push'],
      [{ ...push, object_kind: 'tag_push', event_name: 'tag_push' }, 'tag_push'],
      [pipeline, 'pipeline'],
      [release, 'release.create'],
      [emoji, 'emoji.award'],
    ];
    const expression = compileExpression(GITLAB_EVENT_KEY_EXPR);
    for (const [payload, key] of cases) {
      expect(gitlabEventKey(payload)).toEqual({ ok: true, key });
      // The expression a GitLab source shows names it the same way.
      expect(expression.evaluate(payload), key).toBe(key);
    }
    expect(gitlabEventKey({ project })).toEqual({ ok: false, reason: 'the GitLab payload has no object_kind' });
    expect(gitlabEventKey('not an object')).toMatchObject({ ok: false });
  });

  it('takes the delivery id from Idempotency-Key, else X-Gitlab-Event-UUID', () => {
    expect(gitlabDeliveryId({ 'idempotency-key': 'f5e5f430-f57b-4e6e-9fac-d9128cd7232f', 'x-gitlab-event-uuid': '13792a34' })).toBe(
      'f5e5f430-f57b-4e6e-9fac-d9128cd7232f',
    );
    expect(gitlabDeliveryId({ 'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e' })).toBe('13792a34-cac6-4fda-95a8-c58e00a3954e');
    expect(gitlabDeliveryId({ 'x-gitlab-event': 'Note Hook', 'idempotency-key': '  ' })).toBeNull();
  });

  it('reads who wrote a note and what', () => {
    expect(gitlabActor('note.create', noteOnMergeRequest)).toEqual({
      host: 'gitlab',
      login: 'root',
      id: '1',
      bot: false,
      association: null,
      text: '@agent please fix the failing test',
      comment: null,
      repository: 'gitlab-org/gitlab-test',
    });
    // A new issue's description is its author's words; an update's is not new words.
    expect(gitlabActor('issue.open', issueOpened)).toMatchObject({ login: 'root', text: '@agent look into this' });
    expect(gitlabActor('merge_request.update', mergeRequestUpdated)).toMatchObject({ login: 'root', text: null });
    expect(gitlabActor('push', push)).toMatchObject({ login: 'jsmith', id: '4', text: null, repository: 'mike/diaspora' });
  });

  it('counts access-token bot users, GitLab’s own bots and system notes as bots', () => {
    const by = (username: string) => gitlabActor('note.create', { ...noteOnMergeRequest, user: { ...user, username } });
    expect(by('project_278964_bot_4b9e3a1f').bot).toBe(true);
    expect(by('group_12_bot').bot).toBe(true);
    expect(by('support-bot').bot).toBe(true);
    expect(by('robot-fan').bot).toBe(false);
    const system = { ...noteOnMergeRequest, object_attributes: { ...noteOnMergeRequest.object_attributes, system: true } };
    expect(gitlabActor('note.create', system).bot).toBe(true);
  });

  it('finds the thread: the project and the merge request (!) or issue (#), with the note to reply to', () => {
    expect(gitlabThread('note.create', noteOnMergeRequest)).toEqual({
      thread: {
        host: 'gitlab',
        key: 'gitlab:gitlab-org/gitlab-test!1',
        label: 'gitlab-org/gitlab-test!1',
        repository: 'gitlab-org/gitlab-test',
        at: { project_id: 5, noteable: 'merge_request', iid: 1, note_id: 1244, discussion_id: '6a9c1750b37d513a43987b574953fceb50b03ce7' },
      },
    });
    expect(gitlabThread('note.create', noteOnIssueWithoutAction)).toMatchObject({
      thread: { key: 'gitlab:gitlab-org/gitlab-test#17', at: { noteable: 'issue', iid: 17, note_id: 1241, discussion_id: null } },
    });
    expect(gitlabThread('issue.open', issueOpened)).toMatchObject({ thread: { key: 'gitlab:gitlabhq/gitlab-test#23', at: { note_id: null } } });
    expect(gitlabThread('merge_request.update', mergeRequestUpdated)).toMatchObject({ thread: { key: 'gitlab:gitlabhq/gitlab-test!1' } });
    // The key ignores case (GitLab paths do); the label keeps it.
    const upper = { ...issueOpened, project: { ...issueOpened.project, path_with_namespace: 'GitLabHQ/GitLab-Test' } };
    expect(gitlabThread('issue.open', upper)).toMatchObject({ thread: { key: 'gitlab:gitlabhq/gitlab-test#23', label: 'GitLabHQ/GitLab-Test#23' } });
  });

  it('has no thread for a push, a pipeline or a note on a commit, and says why', () => {
    expect(gitlabThread('push', push)).toEqual({ none: 'a GitLab push event has no issue or merge request to answer in' });
    expect(gitlabThread('pipeline', pipeline)).toMatchObject({ none: expect.any(String) });
    expect(gitlabThread('note.create', noteOnCommit)).toEqual({ none: 'a GitLab note on a commit has no issue or merge request to answer in' });
    expect(gitlabThread('note.create', { object_kind: 'note' })).toEqual({ none: 'the GitLab event names no project' });
  });
});
