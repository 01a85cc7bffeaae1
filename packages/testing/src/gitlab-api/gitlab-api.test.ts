/**
 * The GitLab stand-in itself: it takes what GitLab takes (a project by ID or URL-encoded path,
 * `PRIVATE-TOKEN` or a Bearer token, comma-separated label lists), refuses and records what
 * GitLab's description of the operation does not allow (an unknown route, a wrong type, a
 * missing or unknown body field, an unknown query parameter), answers with GitLab's rules and
 * pagination, and simulates every operation it describes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitlabDescription } from './openapi.js';
import { handlers } from './routes.js';
import { type GitLabApi, startGitLabApi } from './server.js';

const TOKEN = 'glpat-stand-in-test-3f9a';
let gitlab: GitLabApi;

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'private-token': TOKEN }) => {
  const response = await fetch(`${gitlab.apiUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
};

beforeAll(async () => {
  gitlab = await startGitLabApi({ tokens: { [TOKEN]: 'agent-bot' } });
  gitlab.addProject('acme/app');
});

afterAll(async () => {
  await gitlab?.close();
});

describe('the GitLab stand-in', () => {
  it('describes every operation it simulates, and simulates every operation it describes', () => {
    const described = gitlabDescription()
      .operations.map((operation) => operation.operationId)
      .sort();
    expect(Object.keys(handlers).sort()).toEqual(described);
    // The vendored document's operations, and those written from GitLab's documentation where it has none.
    const sources = Object.fromEntries(gitlabDescription().operations.map((operation) => [operation.operationId, operation.source]));
    expect(sources.postApiV4ProjectsIdIssuesIssueIidAwardEmoji).toBe('gitlab-openapi');
    expect(sources.postApiV4ProjectsIdIssuesNoteableIdNotes).toBe('gitlab-docs');
  });

  it('finds a project by its ID or URL-encoded path, with PRIVATE-TOKEN or a Bearer token; 401 without one', async () => {
    const id = gitlab.state.project('acme/app')?.id;
    expect((await call('GET', `/projects/${id}`)).json).toMatchObject({ id, path_with_namespace: 'acme/app', default_branch: 'main' });
    expect((await call('GET', '/projects/acme%2Fapp', undefined, { authorization: `Bearer ${TOKEN}` })).json).toMatchObject({ id });
    expect(await call('GET', '/projects/acme%2Fapp', undefined, {})).toMatchObject({ status: 401, json: { message: '401 Unauthorized' } });
    expect((await call('GET', '/projects/acme%2Fnone')).json).toEqual({ message: '404 Project Not Found' });
    expect(gitlab.requests.slice(-4).map((r) => r.auth)).toEqual(['private-token', 'bearer', null, 'private-token']);
    expect(gitlab.violations).toEqual([]);
  });

  it('records and refuses what GitLab’s description does not allow', async () => {
    const issue = gitlab.addIssue('acme/app');
    const before = gitlab.violations.length;
    expect((await call('POST', `/projects/acme%2Fapp/issues/${issue}/notes`, { note: 'misnamed' })).status).toBe(400);
    expect((await call('POST', `/projects/acme%2Fapp/issues/${issue}/notes`, { body: 42 })).status).toBe(400);
    expect((await call('PUT', `/projects/acme%2Fapp/issues/${issue}`, { addLabels: 'bug' })).status).toBe(400);
    expect((await call('GET', `/projects/acme%2Fapp/issues/${issue}/notes?sort=sideways`)).status).toBe(400);
    expect((await call('GET', `/projects/acme%2Fapp/issues/${issue}/notes?since=2020-01-01`)).status).toBe(400);
    expect((await call('POST', `/projects/acme%2Fapp/issues/abc/award_emoji`, { name: 'eyes' })).status).toBe(400);
    expect((await call('DELETE', '/projects/acme%2Fapp')).status).toBe(404);
    expect(gitlab.violations.slice(before).map((violation) => [violation.kind, violation.problems.join('; ')])).toEqual([
      ['body', "body note is not a parameter of postApiV4ProjectsIdIssuesNoteableIdNotes; body (root) must have required property 'body'"],
      ['body', 'body /body must be string'],
      ['body', 'body addLabels is not a parameter of putApiV4ProjectsIdIssuesIssueIid'],
      ['query', 'query sort must be equal to one of the allowed values (["asc","desc"])'],
      ['query', 'query since is not a parameter of getApiV4ProjectsIdIssuesNoteableIdNotes'],
      ['parameter', 'path issue_iid must be integer'],
      ['route', 'DELETE /api/v4/projects/acme%2Fapp is no operation GitLab describes (or the stand-in knows)'],
    ]);
    gitlab.violations.splice(before);
  });

  it('adds labels from a comma-separated list, as GitLab reads it', async () => {
    const issue = gitlab.addIssue('acme/app', { labels: ['old'] });
    const { json } = await call('PUT', `/projects/acme%2Fapp/issues/${issue}`, { add_labels: 'bug,needs review', remove_labels: 'old' });
    expect(json.labels).toEqual(['bug', 'needs review']);
    expect(gitlab.violations).toEqual([]);
  });

  it('refuses a second award of the same emoji by the same user as GitLab does', async () => {
    const issue = gitlab.addIssue('acme/app');
    expect((await call('POST', `/projects/acme%2Fapp/issues/${issue}/award_emoji`, { name: 'eyes' })).status).toBe(201);
    expect(await call('POST', `/projects/acme%2Fapp/issues/${issue}/award_emoji`, { name: 'eyes' })).toMatchObject({
      status: 404,
      json: { message: '404 Award Emoji Name has already been taken Not Found' },
    });
    expect(gitlab.awards('acme/app', { issue }).map((award) => [award.name, award.user.username])).toEqual([['eyes', 'agent-bot']]);
  });

  it('lists notes newest first by default, in pages with GitLab’s headers', async () => {
    const issue = gitlab.addIssue('acme/app');
    for (const body of ['one', 'two', 'three']) gitlab.addNote('acme/app', { issue }, { body });
    const first = await call('GET', `/projects/acme%2Fapp/issues/${issue}/notes?per_page=2`);
    expect(first.json.map((note: { body: string }) => note.body)).toEqual(['three', 'two']);
    expect(first.headers.get('x-total')).toBe('3');
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.headers.get('link')).toContain('rel="next"');
    const second = await call('GET', `/projects/acme%2Fapp/issues/${issue}/notes?per_page=2&page=2&sort=desc&order_by=updated_at`);
    expect(second.json.map((note: { body: string }) => note.body)).toEqual(['one']);
    expect(gitlab.violations).toEqual([]);
  });

  it('replies in a discussion, making a plain comment a thread', async () => {
    const issue = gitlab.addIssue('acme/app');
    const asked = gitlab.addNote('acme/app', { issue }, { body: 'question', author: 'carol' });
    const { status, json } = await call('POST', `/projects/acme%2Fapp/issues/${issue}/discussions/${asked.discussionId}/notes`, { body: 'answer' });
    expect(status).toBe(201);
    expect(json).toMatchObject({ body: 'answer', type: 'DiscussionNote', noteable_iid: issue, author: { username: 'agent-bot' } });
    expect(gitlab.notes('acme/app', { issue }).map((note) => [note.body, note.type, note.discussionId === asked.discussionId])).toEqual([
      ['question', 'DiscussionNote', true],
      ['answer', 'DiscussionNote', true],
    ]);
    expect((await call('POST', `/projects/acme%2Fapp/issues/${issue}/discussions/nope/notes`, { body: 'x' })).status).toBe(404);
    expect(gitlab.violations).toEqual([]);
  });
});
