import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../git-server/index.js';
import { type GitHubApi, startGitHubApi } from './index.js';

type OctokitInstance = InstanceType<typeof Octokit>;

/** octokit on the stand-in, without its log line for every 4xx the tests provoke on purpose. */
function client(auth: string, baseUrl: string): OctokitInstance {
  return new Octokit({ auth, baseUrl, log: { debug() {}, info() {}, warn() {}, error() {} } });
}

const TOKEN = 'ghp_github_api_test_token';
const READ_ONLY = 'ghs_github_api_read_only';
const GIT_TOKEN = 'ghp_github_api_git_token';

/** The status of a failed octokit call (it throws a `RequestError` for every 4xx). */
async function statusOf(call: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await call;
    return { status: 0, body: null };
  } catch (error) {
    const failure = error as { status?: number; response?: { data?: unknown } };
    return { status: failure.status ?? -1, body: failure.response?.data };
  }
}

describe('startGitHubApi', () => {
  let git: GitServer;
  let github: GitHubApi;
  let octokit: OctokitInstance;
  let firstRequestMs = 0;

  beforeAll(async () => {
    git = await startGitServer({ token: GIT_TOKEN });
    await git.createRepository('acme/app', { branches: { 'agent/fix': { 'fix.txt': 'fixed\n' } } });
    const started = performance.now();
    github = await startGitHubApi({ tokens: { [TOKEN]: 'agent-bot', [READ_ONLY]: { login: 'reader[bot]', type: 'Bot', readOnly: ['acme/app'] } }, git });
    github.addRepository('acme/app');
    github.addIssue('acme/app', { number: 7, title: 'Crash on start' });
    octokit = client(TOKEN, github.apiUrl);
    await octokit.rest.users.getAuthenticated();
    firstRequestMs = performance.now() - started;
  });
  afterAll(async () => {
    await github?.close();
    await git?.close();
  });

  it('loads the description once, in reasonable time, and serves under /api/v3', async () => {
    console.info(`GitHub OpenAPI description: loaded in ${Math.round(github.descriptionLoadMs)} ms; start + first request ${Math.round(firstRequestMs)} ms`);
    expect(github.apiUrl).toBe(`${github.url}/api/v3`);
    expect(firstRequestMs).toBeLessThan(15_000);
    const again = await startGitHubApi();
    expect(again.descriptionLoadMs).toBe(0);
    await again.close();
    const { data } = await octokit.rest.users.getAuthenticated();
    expect(data.login).toBe('agent-bot');
  });

  it('answers GET /repos/{owner}/{repo} with a full repository whose clone URL is on the same origin', async () => {
    const { data } = await octokit.rest.repos.get({ owner: 'acme', repo: 'app' });
    expect(data.full_name).toBe('acme/app');
    expect(data.clone_url).toBe(`${github.url}/acme/app.git`);
    const refs = await fetch(`${data.clone_url}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x-access-token:${GIT_TOKEN}`).toString('base64')}` },
    });
    expect(refs.status).toBe(200);
    expect(await refs.text()).toContain('refs/heads/agent/fix');
    expect((await statusOf(octokit.rest.repos.get({ owner: 'acme', repo: 'missing' }))).status).toBe(404);
  });

  it('creates a reaction (201), answers the same one again with 200, on issues and comments', async () => {
    const first = await octokit.rest.reactions.createForIssue({ owner: 'acme', repo: 'app', issue_number: 7, content: 'eyes' });
    expect(first.status).toBe(201);
    const second = await octokit.rest.reactions.createForIssue({ owner: 'acme', repo: 'app', issue_number: 7, content: 'eyes' });
    expect(second.status).toBe(200);
    expect(second.data.id).toBe(first.data.id);
    expect(github.reactions('acme/app', { issue: 7 }).map((r) => [r.content, r.user.login])).toEqual([['eyes', 'agent-bot']]);

    const commentId = github.addIssueComment('acme/app', 7, { body: '@agent-bot please fix', user: 'alice' });
    const onComment = await octokit.rest.reactions.createForIssueComment({ owner: 'acme', repo: 'app', comment_id: commentId, content: '+1' });
    expect(onComment.status).toBe(201);
    expect(github.reactions('acme/app', { comment: commentId })).toHaveLength(1);

    // On another repository, so the pull request list of acme/app stays as the tests below expect.
    github.addRepository('acme/site');
    const reviewId = github.addReviewComment('acme/site', github.addPullRequest('acme/site', { head: 'docs' }), { body: 'nit' });
    const onReview = await octokit.rest.reactions.createForPullRequestReviewComment({ owner: 'acme', repo: 'site', comment_id: reviewId, content: 'rocket' });
    expect(onReview.status).toBe(201);
    expect(github.reactions('acme/site', { reviewComment: reviewId })).toHaveLength(1);
    expect((await statusOf(octokit.rest.reactions.createForIssue({ owner: 'acme', repo: 'app', issue_number: 999, content: 'eyes' }))).status).toBe(404);
  });

  it('creates, edits, gets and lists issue comments, with pages', async () => {
    github.addIssue('acme/app', { number: 8 });
    const created = await octokit.rest.issues.createComment({ owner: 'acme', repo: 'app', issue_number: 8, body: 'Working on it' });
    expect(created.status).toBe(201);
    expect(created.data.user?.login).toBe('agent-bot');
    expect(created.headers.location).toBe(created.data.url);
    const edited = await octokit.rest.issues.updateComment({ owner: 'acme', repo: 'app', comment_id: created.data.id, body: 'Done: #9' });
    expect(edited.data.body).toBe('Done: #9');
    const fetched = await octokit.rest.issues.getComment({ owner: 'acme', repo: 'app', comment_id: created.data.id });
    expect(fetched.data.body).toBe('Done: #9');
    for (const n of [1, 2, 3]) github.addIssueComment('acme/app', 8, { body: `extra ${n}` });
    const page = await octokit.rest.issues.listComments({ owner: 'acme', repo: 'app', issue_number: 8, per_page: 2 });
    expect(page.data.map((c) => c.body)).toEqual(['Done: #9', 'extra 1']);
    expect(page.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.issues.listComments, { owner: 'acme', repo: 'app', issue_number: 8, per_page: 2 });
    expect(all.map((c) => c.body)).toEqual(['Done: #9', 'extra 1', 'extra 2', 'extra 3']);
    const since = await octokit.rest.issues.listComments({ owner: 'acme', repo: 'app', issue_number: 8, since: '2999-01-01T00:00:00Z' });
    expect(since.data).toEqual([]);
    expect(github.comments('acme/app', 8).map((c) => c.body)).toEqual(['Done: #9', 'extra 1', 'extra 2', 'extra 3']);
  });

  it('adds labels, creating those the repository lacks', async () => {
    github.addIssue('acme/app', { number: 10, labels: ['bug'] });
    const { data } = await octokit.rest.issues.addLabels({ owner: 'acme', repo: 'app', issue_number: 10, labels: ['agent', 'Bug'] });
    expect(data.map((l) => l.name)).toEqual(['bug', 'agent']);
    expect(github.labels('acme/app', 10)).toEqual(['bug', 'agent']);
  });

  it('opens a pull request from a branch on the git server, and refuses one without commits', async () => {
    const { data, status } = await octokit.rest.pulls.create({
      owner: 'acme',
      repo: 'app',
      title: 'Fix the crash',
      head: 'agent/fix',
      base: 'main',
      body: 'Fixes #7',
      draft: true,
    });
    expect(status).toBe(201);
    const refs = await git.refs('acme/app');
    expect(data.head.sha).toBe(refs['refs/heads/agent/fix']);
    expect(data.base.sha).toBe(refs['refs/heads/main']);
    expect(data.html_url).toBe(`${github.url}/acme/app/pull/${data.number}`);
    const got = await octokit.rest.pulls.get({ owner: 'acme', repo: 'app', pull_number: data.number });
    expect(got.data.title).toBe('Fix the crash');
    expect(github.pulls('acme/app')).toEqual([
      { number: data.number, title: 'Fix the crash', body: 'Fixes #7', head: 'agent/fix', base: 'main', draft: true, user: 'agent-bot' },
    ]);

    const again = await statusOf(octokit.rest.pulls.create({ owner: 'acme', repo: 'app', title: 'Again', head: 'agent/fix', base: 'main' }));
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({
      message: 'Validation Failed',
      errors: [{ code: 'custom', message: 'A pull request already exists for acme:agent/fix.' }],
    });
    const missing = await statusOf(octokit.rest.pulls.create({ owner: 'acme', repo: 'app', title: 'Nope', head: 'agent/none', base: 'main' }));
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }] });
    const empty = await statusOf(octokit.rest.pulls.create({ owner: 'acme', repo: 'app', title: 'Nothing', head: 'main', base: 'main' }));
    expect(empty.body).toMatchObject({ errors: [{ code: 'custom', message: 'No commits between main and main' }] });
  });

  it('refuses a read-only token writes with 403, a wrong or missing token with 401', async () => {
    const reader = client(READ_ONLY, github.apiUrl);
    expect((await reader.rest.repos.get({ owner: 'acme', repo: 'app' })).data.permissions?.push).toBe(false);
    const refused = await statusOf(reader.rest.issues.createComment({ owner: 'acme', repo: 'app', issue_number: 7, body: 'hi' }));
    expect(refused).toEqual({ status: 403, body: { message: 'Resource not accessible by integration', documentation_url: expect.any(String), status: '403' } });

    github.addRepository('acme/other');
    github.addIssue('acme/other', { number: 1 });
    const elsewhere = await reader.rest.issues.createComment({ owner: 'acme', repo: 'other', issue_number: 1, body: 'hi' });
    expect(elsewhere.data.user).toMatchObject({ login: 'reader[bot]', type: 'Bot', html_url: `${github.url}/apps/reader` });

    const wrong = await statusOf(client('ghp_wrong', github.apiUrl).rest.users.getAuthenticated());
    expect(wrong).toEqual({ status: 401, body: { message: 'Bad credentials', documentation_url: expect.any(String), status: '401' } });
    const none = await fetch(`${github.apiUrl}/user`);
    expect(none.status).toBe(401);
    expect(github.requests.every((r) => !JSON.stringify(r).includes(TOKEN) && !JSON.stringify(r).includes('ghp_wrong'))).toBe(true);
    expect(github.requests.at(-2)?.auth).toBe('token');
  });

  it('recorded no violations for everything octokit sent and the stand-in answered', () => {
    expect(github.violations).toEqual([]);
    expect(github.requests.length).toBeGreaterThan(20);
    expect(github.requests.every((r) => r.operationId !== null)).toBe(true);
  });
});

describe('requests that do not match the description', () => {
  let github: GitHubApi;
  const call = (method: string, path: string, body?: unknown, token = TOKEN) =>
    fetch(`${github.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  beforeAll(async () => {
    github = await startGitHubApi({ tokens: { [TOKEN]: 'agent-bot' } });
    github.addIssue('acme/app', { number: 1 });
  });
  afterAll(() => github?.close());

  it('answers a comment without its required body with 422 and records it', async () => {
    const response = await call('POST', '/repos/acme/app/issues/1/comments', {});
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ message: 'Validation Failed', errors: [{ code: 'invalid' }] });
    expect(github.violations.at(-1)).toMatchObject({
      kind: 'body',
      operationId: 'issues/create-comment',
      problems: ["body (root) must have required property 'body'"],
    });
    expect(github.comments('acme/app', 1)).toEqual([]);
  });

  it('answers a reaction outside the enum with 422', async () => {
    const response = await call('POST', '/repos/acme/app/issues/1/reactions', { content: 'party' });
    expect(response.status).toBe(422);
    expect(github.violations.at(-1)).toMatchObject({ kind: 'body', operationId: 'reactions/create-for-issue' });
    expect(github.violations.at(-1)?.problems[0]).toContain('/content must be equal to one of the allowed values');
  });

  it('answers a wrong token with 401 and records the scheme, not the token', async () => {
    const before = github.violations.length;
    const response = await call('GET', '/repos/acme/app', undefined, 'ghp_not_it');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: 'Bad credentials', documentation_url: expect.any(String), status: '401' });
    expect(github.requests.at(-1)).toMatchObject({ status: 401, auth: 'bearer' });
    expect(github.violations.length).toBe(before);
  });

  it('answers a path parameter of the wrong type, an unknown route and an unknown query with a violation each', async () => {
    expect((await call('GET', '/repos/acme/app/issues/seven/comments')).status).toBe(404);
    expect(github.violations.at(-1)).toMatchObject({ kind: 'parameter', problems: ['path issue_number must be integer'] });
    expect((await call('GET', '/repos/acme/app/isues/1')).status).toBe(404);
    expect(github.violations.at(-1)).toMatchObject({ kind: 'route', operationId: null });
    expect((await call('GET', '/repos/acme/app/issues/1/comments?perpage=5')).status).toBe(422);
    expect(github.violations.at(-1)).toMatchObject({ kind: 'query', problems: ['query perpage is not a parameter of issues/list-comments'] });
    expect((await call('GET', '/repos/acme/app/issues/1/comments?since=yesterday')).status).toBe(422);
    expect((await call('POST', '/repos/acme/app/issues/1/comments', '{not json')).status).toBe(400);
  });

  it('records an answer of its own that strays from the response schema', async () => {
    const id = github.addIssueComment('acme/app', 1, { body: 'hello' });
    const comment = github.state.comments.get(id);
    if (comment) comment.createdAt = 'yesterday';
    expect((await call('GET', `/repos/acme/app/issues/comments/${id}`)).status).toBe(200);
    expect(github.violations.at(-1)).toMatchObject({
      kind: 'response',
      operationId: 'issues/get-comment',
      problems: ['response 200 /created_at must match format "date-time"'],
    });
  });

  it('hands requests outside /api/v3 to the fallback', async () => {
    const withFallback = await startGitHubApi({
      fallback: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('fallback\n');
      },
    });
    try {
      expect(await (await fetch(`${withFallback.url}/acme/app.git/info/refs`)).text()).toBe('fallback\n');
      // No tokens configured: requests act as octocat.
      expect(await (await fetch(`${withFallback.apiUrl}/user`)).json()).toMatchObject({ login: 'octocat' });
      expect(withFallback.violations).toEqual([]);
    } finally {
      await withFallback.close();
    }
  });

  it('records operations it does not simulate instead of inventing answers', async () => {
    expect((await call('DELETE', '/repos/acme/app')).status).toBe(404);
    expect(github.violations.at(-1)).toMatchObject({ kind: 'unimplemented', operationId: 'repos/delete' });
  });
});

describe('collaborators, pull request lists and review comments', () => {
  const READER = 'ghp_github_api_reader';
  let github: GitHubApi;
  let octokit: OctokitInstance;
  const repo = { owner: 'acme', repo: 'app' };

  beforeAll(async () => {
    github = await startGitHubApi({
      tokens: { [TOKEN]: 'agent-bot', [READ_ONLY]: { login: 'reader[bot]', type: 'Bot', readOnly: ['acme/app'] }, [READER]: 'rita' },
    });
    github.addRepository('acme/app');
    github.addRepository('acme/public', { private: false });
    github.addCollaborator('acme/app', 'ada', 'admin');
    github.addCollaborator('acme/app', 'bob', 'maintain');
    github.addCollaborator('acme/app', 'alice', 'write');
    github.addCollaborator('acme/app', 'tom', 'triage');
    github.addCollaborator('acme/app', 'rita', 'read');
    github.addUser('mallory');
    octokit = client(TOKEN, github.apiUrl);
  });
  afterAll(() => github?.close());

  it('answers each role with its legacy permission and role name; a user without one is none, or read when the repository is public', async () => {
    const level = async (username: string, name = 'app') => {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: name, username });
      return [data.permission, data.role_name];
    };
    const answers = await Promise.all(['ada', 'bob', 'alice', 'tom', 'rita', 'acme', 'mallory', 'ALICE'].map((login) => level(login)));
    expect(answers).toEqual([
      ['admin', 'admin'],
      ['write', 'maintain'],
      ['write', 'write'],
      ['read', 'triage'],
      ['read', 'read'],
      ['admin', 'admin'],
      ['none', ''],
      ['write', 'write'],
    ]);
    expect(await level('mallory', 'public')).toEqual(['read', 'read']);
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: 'bob' });
    expect(data.user).toMatchObject({
      login: 'bob',
      role_name: 'maintain',
      permissions: { admin: false, maintain: true, push: true, triage: true, pull: true },
    });
    expect((await statusOf(octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: 'nobody' }))).status).toBe(404);
    expect((await statusOf(octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: 'missing', username: 'bob' }))).status).toBe(404);
    expect(() => github.addCollaborator('acme/app', 'eve', 'owner' as never)).toThrow(/not one of/);
    expect(() => github.addCollaborator('acme/none', 'eve', 'read')).toThrow(/no repository/);
  });

  it("shows a token's own role in the repository's permissions and in the author association of what it writes", async () => {
    const reader = client(READER, github.apiUrl);
    expect((await reader.rest.repos.get(repo)).data.permissions).toEqual({ admin: false, maintain: false, push: false, triage: false, pull: true });
    expect((await octokit.rest.repos.get(repo)).data.permissions).toEqual({ admin: false, maintain: false, push: true, triage: true, pull: true });
    github.addIssue('acme/app', { number: 50 });
    // A read collaborator may comment on GitHub: roles do not make the token read-only.
    const mine = await reader.rest.issues.createComment({ ...repo, issue_number: 50, body: 'seen' });
    expect(mine.data.author_association).toBe('COLLABORATOR');
    const bots = await octokit.rest.issues.createComment({ ...repo, issue_number: 50, body: 'on it' });
    expect(bots.data.author_association).toBe('NONE');
  });

  it('lists pull requests by state, head (owner:branch only), base and page, newest first', async () => {
    github.addRepository('acme/pulls');
    github.addCollaborator('acme/pulls', 'alice', 'write');
    const list = (query: Record<string, unknown> = {}) =>
      octokit.rest.pulls.list({ owner: 'acme', repo: 'pulls', ...query }).then(({ data }) => data.map((pull) => pull.number));
    const a = github.addPullRequest('acme/pulls', { head: 'feature/a', title: 'A', user: 'alice' });
    const b = github.addPullRequest('acme/pulls', { head: 'feature/b' });
    const closed = github.addPullRequest('acme/pulls', { head: 'feature/c', state: 'closed' });
    const release = github.addPullRequest('acme/pulls', { head: 'feature/a', base: 'release' });
    expect(await list()).toEqual([release, b, a]);
    expect(await list({ state: 'closed' })).toEqual([closed]);
    expect(await list({ state: 'all', direction: 'asc' })).toEqual([a, b, closed, release]);
    expect(await list({ head: 'acme:feature/a' })).toEqual([release, a]);
    expect(await list({ head: 'ACME:feature/a', base: 'main' })).toEqual([a]);
    expect(await list({ head: 'someone:feature/a' })).toEqual([]);
    // GitHub ignores a head without its owner.
    expect(await list({ head: 'feature/a' })).toEqual([release, b, a]);

    const page = await octokit.rest.pulls.list({ owner: 'acme', repo: 'pulls', per_page: 2 });
    expect(page.data.map((pull) => pull.number)).toEqual([release, b]);
    expect(page.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.pulls.list, { owner: 'acme', repo: 'pulls', per_page: 2 });
    expect(all.map((pull) => pull.number)).toEqual([release, b, a]);
    const first = page.data.at(-1);
    expect(first).toMatchObject({ head: { ref: 'feature/b', label: 'acme:feature/b' }, base: { ref: 'main' }, state: 'open' });
    // A list holds pull-request-simple items: no members GitHub computes for one pull request only.
    expect(first && 'mergeable' in first).toBe(false);
    expect((await octokit.rest.pulls.list({ owner: 'acme', repo: 'pulls', head: 'acme:feature/a', base: 'main' })).data[0]?.author_association).toBe(
      'COLLABORATOR',
    );
    expect((await statusOf(octokit.rest.pulls.list({ owner: 'acme', repo: 'missing' }))).status).toBe(404);
  });

  it('gets, edits, lists and replies to review comments, threading a reply to a reply under the first comment', async () => {
    const pull = github.addPullRequest('acme/app', { head: 'fix/review', user: 'alice' });
    const root = github.addReviewComment('acme/app', pull, { user: 'bob', body: 'Rename this', path: 'src/app.ts', line: 12 });
    const { data: got } = await octokit.rest.pulls.getReviewComment({ ...repo, comment_id: root });
    const head = (await octokit.rest.pulls.get({ ...repo, pull_number: pull })).data.head.sha;
    expect(got).toMatchObject({ id: root, body: 'Rename this', path: 'src/app.ts', line: 12, side: 'RIGHT', subject_type: 'line', commit_id: head });
    expect(got).toMatchObject({ author_association: 'COLLABORATOR', html_url: `${github.url}/acme/app/pull/${pull}#discussion_r${root}` });
    expect('in_reply_to_id' in got).toBe(false);

    const reply = await octokit.rest.pulls.createReplyForReviewComment({ ...repo, pull_number: pull, comment_id: root, body: 'Done' });
    expect(reply.status).toBe(201);
    expect(reply.headers.location).toBe(reply.data.url);
    expect(reply.data).toMatchObject({ in_reply_to_id: root, path: 'src/app.ts', line: 12, commit_id: head, user: { login: 'agent-bot' } });
    const again = await octokit.rest.pulls.createReplyForReviewComment({ ...repo, pull_number: pull, comment_id: reply.data.id, body: 'And tested' });
    expect(again.data.in_reply_to_id).toBe(root);

    const edited = await octokit.rest.pulls.updateReviewComment({ ...repo, comment_id: reply.data.id, body: 'Done in abc123' });
    expect(edited.data.body).toBe('Done in abc123');
    expect((await octokit.rest.pulls.getReviewComment({ ...repo, comment_id: reply.data.id })).data.body).toBe('Done in abc123');

    const page = await octokit.rest.pulls.listReviewComments({ ...repo, pull_number: pull, per_page: 2 });
    expect(page.data.map((c) => c.body)).toEqual(['Rename this', 'Done in abc123']);
    expect(page.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, { ...repo, pull_number: pull, per_page: 2 });
    expect(all.map((c) => c.id)).toEqual([root, reply.data.id, again.data.id]);
    const newest = await octokit.rest.pulls.listReviewComments({ ...repo, pull_number: pull, sort: 'created', direction: 'desc' });
    expect(newest.data.map((c) => c.id)).toEqual([again.data.id, reply.data.id, root]);
    expect((await octokit.rest.pulls.listReviewComments({ ...repo, pull_number: pull, since: '2999-01-01T00:00:00Z' })).data).toEqual([]);
    expect(github.reviewComments('acme/app', pull).map((c) => [c.body, c.inReplyToId])).toEqual([
      ['Rename this', null],
      ['Done in abc123', root],
      ['And tested', root],
    ]);
    expect((await octokit.rest.pulls.get({ ...repo, pull_number: pull })).data.review_comments).toBe(3);
  });

  it('answers 404 for a review comment on another pull request or repository, a missing pull request or comment', async () => {
    const pull = github.addPullRequest('acme/app', { head: 'fix/other' });
    const other = github.addPullRequest('acme/app', { head: 'fix/third' });
    const comment = github.addReviewComment('acme/app', pull, { body: 'Whole file', path: 'README.md', line: null });
    const { data } = await octokit.rest.pulls.getReviewComment({ ...repo, comment_id: comment });
    expect(data).toMatchObject({ subject_type: 'file', path: 'README.md' });
    expect('line' in data).toBe(false);
    const reply = (pull_number: number, comment_id: number) =>
      statusOf(octokit.rest.pulls.createReplyForReviewComment({ ...repo, pull_number, comment_id, body: 'x' }));
    expect((await reply(other, comment)).status).toBe(404);
    expect((await reply(9999, comment)).status).toBe(404);
    expect((await reply(pull, 9999)).status).toBe(404);
    expect((await statusOf(octokit.rest.pulls.getReviewComment({ owner: 'acme', repo: 'public', comment_id: comment }))).status).toBe(404);
    expect((await statusOf(octokit.rest.pulls.updateReviewComment({ ...repo, comment_id: 9999, body: 'x' }))).status).toBe(404);
    expect((await statusOf(octokit.rest.pulls.listReviewComments({ ...repo, pull_number: 9999 }))).status).toBe(404);
    const readOnly = await statusOf(
      client(READ_ONLY, github.apiUrl).rest.pulls.createReplyForReviewComment({ ...repo, pull_number: pull, comment_id: comment, body: 'x' }),
    );
    expect(readOnly.status).toBe(403);
    expect(github.reviewComments('acme/app', pull)).toHaveLength(1);
    github.addIssue('acme/app', { number: 60 });
    expect(() => github.addReviewComment('acme/app', 60, { body: 'on an issue' })).toThrow(/no pull request acme\/app#60/);
    expect(() => github.addReviewComment('acme/app', pull, { body: 'x', inReplyTo: 9999 })).toThrow(/no review comment 9999/);
  });

  it('recorded no violations', () => {
    expect(github.violations).toEqual([]);
  });
});
