import { describe, expect, it } from 'vitest';
import { bitbucketActor, bitbucketDeliveryId, bitbucketEventKey, bitbucketThread } from './bitbucket.js';

// Payloads shaped as Bitbucket Cloud's "Event payloads" page describes them (Account, Repository,
// Pull Request, Issue and Comment entities), trimmed to what is read.
const actor = {
  type: 'user',
  display_name: 'Emma',
  uuid: '{a54f16da-24e9-4d7f-a3a7-b1ba2cd98aa3}',
  account_id: '557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443',
  nickname: 'emma',
  links: { html: { href: 'https://bitbucket.org/%7Ba54f16da-24e9-4d7f-a3a7-b1ba2cd98aa3%7D/' } },
};
const repository = {
  type: 'repository',
  full_name: 'acme-team/api',
  name: 'api',
  uuid: '{b7a3c2d1-1111-4c3b-9d2e-0f1e2d3c4b5a}',
  workspace: { type: 'workspace', slug: 'acme-team', name: 'Acme Team' },
};
const pullrequest = {
  type: 'pullrequest',
  id: 12,
  title: 'Fix login',
  description: '@agent can you add a test?',
  summary: { raw: '@agent can you add a test?', markup: 'markdown', html: '<p>@agent can you add a test?</p>' },
  state: 'OPEN',
  author: actor,
};
const comment = (raw: string, extra: Record<string, unknown> = {}) => ({
  type: 'pullrequest_comment',
  id: 17,
  content: { raw, markup: 'markdown', html: `<p>${raw}</p>`, type: 'rendered' },
  user: actor,
  deleted: false,
  ...extra,
});
const prComment = { actor, repository, pullrequest, comment: comment('@{557058:agent-account-id} please rebase', { parent: { id: 9 } }) };
const issueComment = { actor, repository, issue: { type: 'issue', id: 4, title: 'Crash', content: { raw: 'It crashes' } }, comment: comment('@agent look') };
const push = { actor, repository, push: { changes: [{ new: { type: 'branch', name: 'main', target: { hash: 'abcdef0' } } }] } };

describe('Bitbucket Cloud events', () => {
  it('names events by X-Event-Key, in Bitbucket’s own spelling', () => {
    for (const key of ['pullrequest:comment_created', 'pullrequest:created', 'issue:comment_created', 'repo:push', 'pullrequest:changes_request_created']) {
      expect(bitbucketEventKey({ 'x-event-key': key })).toEqual({ ok: true, key });
    }
    expect(bitbucketEventKey({})).toEqual({ ok: false, reason: 'header X-Event-Key is missing or empty' });
    expect(bitbucketEventKey({ 'x-event-key': 'Push Hook' })).toEqual({ ok: false, reason: 'header X-Event-Key is not a Bitbucket event key' });
  });

  it('takes the delivery id from X-Request-UUID (not X-Hook-UUID, which names the webhook)', () => {
    const headers = { 'x-request-uuid': 'afe5f7d2-1c7e-4f3a-9a3b-1d2e3f4a5b6c', 'x-hook-uuid': '{hook}', 'x-attempt-number': '2' };
    expect(bitbucketDeliveryId(headers)).toBe('afe5f7d2-1c7e-4f3a-9a3b-1d2e3f4a5b6c');
    expect(bitbucketDeliveryId({ 'x-hook-uuid': '{hook}' })).toBeNull();
  });

  it('reads who commented and what, as Bitbucket writes it', () => {
    expect(bitbucketActor('pullrequest:comment_created', prComment)).toEqual({
      host: 'bitbucket',
      login: 'emma',
      id: '557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443',
      bot: false,
      association: null,
      text: '@{557058:agent-account-id} please rebase',
      comment: null,
      repository: 'acme-team/api',
    });
    expect(bitbucketActor('issue:comment_created', issueComment)).toMatchObject({ text: '@agent look' });
    expect(bitbucketActor('pullrequest:created', { actor, repository, pullrequest })).toMatchObject({ text: '@agent can you add a test?' });
    expect(bitbucketActor('pullrequest:updated', { actor, repository, pullrequest })).toMatchObject({ text: null });
    expect(bitbucketActor('repo:push', push)).toMatchObject({ login: 'emma', text: null });
  });

  it('counts an account that is not a user (an app user, a team) as a bot', () => {
    expect(bitbucketActor('pullrequest:comment_created', { ...prComment, actor: { ...actor, type: 'app_user' } }).bot).toBe(true);
    expect(bitbucketActor('pullrequest:comment_created', { ...prComment, actor: { ...actor, type: 'team' } }).bot).toBe(true);
  });

  it('finds the thread: the repository and the pull request or issue, with the comment to reply to', () => {
    expect(bitbucketThread('pullrequest:comment_created', prComment)).toEqual({
      thread: {
        host: 'bitbucket',
        key: 'bitbucket:acme-team/api/pull-requests/12',
        label: 'acme-team/api pull request #12',
        repository: 'acme-team/api',
        at: { pullrequest_id: 12, issue_id: null, comment_id: 17, parent_id: 9 },
      },
    });
    expect(bitbucketThread('issue:comment_created', issueComment)).toMatchObject({
      thread: { key: 'bitbucket:acme-team/api/issues/4', label: 'acme-team/api#4', at: { issue_id: 4, comment_id: 17, parent_id: null } },
    });
    expect(bitbucketThread('repo:push', push)).toEqual({ none: 'a Bitbucket repo:push event has no pull request or issue to answer in' });
    expect(bitbucketThread('pullrequest:created', { actor, pullrequest })).toEqual({ none: 'the Bitbucket event names no repository' });
  });
});
