import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../git-server/index.js';
import { startBitbucketApi, type BitbucketApi } from './index.js';

const TOKEN = 'bb-standin-token-51c2';
const READER = 'bb-standin-reader-77aa';
const NARROW = 'bb-standin-narrow-0d9e';

describe('the Bitbucket API stand-in', () => {
  let git: GitServer;
  let bitbucket: BitbucketApi;
  let pull: number;

  const call = async (token: string | null, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${bitbucket.apiUrl}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null, headers: response.headers };
  };

  beforeAll(async () => {
    git = await startGitServer({ token: TOKEN, username: 'x-token-auth' });
    await git.createRepository('acme/app', { branches: { 'feature/fix': { 'fix.txt': 'fixed\n' } } });
    bitbucket = await startBitbucketApi({
      tokens: {
        [TOKEN]: { nickname: 'acme-bot', type: 'app_user' },
        [READER]: 'rita',
        [NARROW]: { nickname: 'nora', scopes: ['pullrequest'] },
      },
      git,
    });
    bitbucket.addRepository('acme/app');
    bitbucket.addPermission('acme/app', 'rita', 'read');
    bitbucket.addPermission('acme/app', 'nora', 'write');
    pull = bitbucket.addPullRequest('acme/app', { source: 'feature/fix', title: 'Fix it' });
  });

  afterAll(async () => {
    await bitbucket?.close();
    await git?.close();
  });

  it('refuses requests without a token it knows, as Bitbucket answers them', async () => {
    expect((await call(null, 'GET', `/repositories/acme/app/pullrequests/${pull}/comments`)).status).toBe(401);
    expect((await call('nope', 'GET', `/repositories/acme/app/pullrequests/${pull}/comments`)).json).toMatchObject({ type: 'error' });
    expect(bitbucket.violations).toEqual([]);
  });

  it('keeps comments and replies, lists them in pages, filters and sorts them', async () => {
    const first = await call(TOKEN, 'POST', `/repositories/acme/app/pullrequests/${pull}/comments`, { type: 'pullrequest_comment', content: { raw: 'one' } });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ type: 'pullrequest_comment', content: { raw: 'one' }, user: { nickname: 'acme-bot' } });
    expect(first.json.links.html.href).toBe(`${bitbucket.url}/acme/app/pull-requests/${pull}#comment-${first.json.id}`);
    const reply = await call(TOKEN, 'POST', `/repositories/acme/app/pullrequests/${pull}/comments`, {
      type: 'pullrequest_comment',
      content: { raw: 'two' },
      parent: { type: 'pullrequest_comment', id: first.json.id },
    });
    expect(reply.json.parent.id).toBe(first.json.id);
    for (let i = 3; i <= 12; i++) bitbucket.addComment('acme/app', pull, { raw: `comment ${i}` });

    const page1 = await call(TOKEN, 'GET', `/repositories/acme/app/pullrequests/${pull}/comments`);
    expect(page1.json).toMatchObject({ pagelen: 10, size: 12, page: 1 });
    expect(page1.json.values).toHaveLength(10);
    const page2 = await call(TOKEN, 'GET', new URL(page1.json.next).pathname.replace('/2.0', '') + new URL(page1.json.next).search);
    expect(page2.json.values.map((c: { content: { raw: string } }) => c.content.raw)).toEqual(['comment 11', 'comment 12']);
    const newest = await call(TOKEN, 'GET', `/repositories/acme/app/pullrequests/${pull}/comments?q=${encodeURIComponent('content.raw ~ "two"')}&sort=-id`);
    expect(newest.json.values.map((c: { id: number }) => c.id)).toEqual([reply.json.id]);
    const bad = await call(TOKEN, 'GET', `/repositories/acme/app/pullrequests/${pull}/comments?q=${encodeURIComponent('content.raw ~~ x')}`);
    expect(bad.status).toBe(400);
    expect(bitbucket.violations).toEqual([]);
  });

  it('lets only a comment’s author edit it', async () => {
    const mine = await call(TOKEN, 'POST', `/repositories/acme/app/pullrequests/${pull}/comments`, { type: 'pullrequest_comment', content: { raw: 'draft' } });
    const edited = await call(TOKEN, 'PUT', `/repositories/acme/app/pullrequests/${pull}/comments/${mine.json.id}`, {
      type: 'pullrequest_comment',
      content: { raw: 'final' },
    });
    expect(edited.json.content.raw).toBe('final');
    const theirs = bitbucket.addComment('acme/app', pull, { raw: 'mine', user: 'rita' });
    expect(
      (await call(TOKEN, 'PUT', `/repositories/acme/app/pullrequests/${pull}/comments/${theirs}`, { type: 'pullrequest_comment', content: { raw: 'x' } }))
        .status,
    ).toBe(403);
    expect(
      (await call(TOKEN, 'PUT', `/repositories/acme/app/pullrequests/${pull}/comments/99999`, { type: 'pullrequest_comment', content: { raw: 'x' } })).status,
    ).toBe(404);
    expect(bitbucket.violations).toEqual([]);
  });

  it('opens pull requests from branches the git server has, into the main branch by default', async () => {
    const opened = await call(TOKEN, 'POST', '/repositories/acme/app/pullrequests', {
      type: 'pullrequest',
      title: 'Fix the crash',
      description: 'Fixes it.',
      source: { branch: { name: 'feature/fix' } },
    });
    expect(opened.status).toBe(201);
    expect(opened.json).toMatchObject({
      title: 'Fix the crash',
      source: { branch: { name: 'feature/fix' } },
      destination: { branch: { name: 'main' } },
      state: 'OPEN',
    });
    expect(opened.headers.get('location')).toBe(opened.json.links.self.href);
    const refs = await git.refs('acme/app');
    expect(refs['refs/heads/feature/fix']?.startsWith(opened.json.source.commit.hash)).toBe(true);
    const missing = await call(TOKEN, 'POST', '/repositories/acme/app/pullrequests', { type: 'pullrequest', title: 'x', source: { branch: { name: 'nope' } } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toContain('branch not found: nope');
    const reader = await call(READER, 'POST', '/repositories/acme/app/pullrequests', {
      type: 'pullrequest',
      title: 'x',
      source: { branch: { name: 'feature/fix' } },
    });
    expect(reader.status).toBe(403);
    expect(bitbucket.pulls('acme/app').map((p) => p.title)).toEqual(['Fix it', 'Fix the crash']);
    expect(bitbucket.violations).toEqual([]);
  });

  it('asks the token for the scopes Bitbucket’s description names', async () => {
    const refused = await call(NARROW, 'POST', '/repositories/acme/app/pullrequests', {
      type: 'pullrequest',
      title: 'x',
      source: { branch: { name: 'feature/fix' } },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toContain('privilege scopes');
    expect(bitbucket.violations).toEqual([]);
  });

  it('tells a repository admin each person’s permission, and nobody else', async () => {
    const rita = bitbucket.addUser('rita');
    const all = await call(TOKEN, 'GET', '/workspaces/acme/permissions/repositories/app');
    expect(all.json.values.map((entry: { user: { nickname: string }; permission: string }) => [entry.user.nickname, entry.permission])).toEqual([
      ['rita', 'read'],
      ['nora', 'write'],
    ]);
    const one = await call(TOKEN, 'GET', `/workspaces/acme/permissions/repositories/app?q=${encodeURIComponent(`user.account_id="${rita.accountId}"`)}`);
    expect(one.json.values).toHaveLength(1);
    expect((await call(READER, 'GET', '/workspaces/acme/permissions/repositories/app')).status).toBe(403);
    expect(bitbucket.violations).toEqual([]);
  });

  it('records what does not match Bitbucket’s description', async () => {
    // Bitbucket's objects carry their `type`; a body without one does not match the description.
    const untyped = await call(TOKEN, 'POST', `/repositories/acme/app/pullrequests/${pull}/comments`, { content: { raw: 'x' } });
    expect(untyped.status).toBe(400);
    await call(TOKEN, 'GET', `/repositories/acme/app/pullrequests/${pull}/comments?per_page=5`);
    await call(TOKEN, 'GET', '/repositories/acme/app/issues/1/comments');
    expect(bitbucket.violations.map((violation) => violation.kind)).toEqual(['body', 'query', 'route']);
    bitbucket.violations.length = 0;
  });

  it('serves the repositories’ git on the same origin', async () => {
    const response = await fetch(`${bitbucket.url}/acme/app.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x-token-auth:${TOKEN}`).toString('base64')}` },
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });
});
