/**
 * Answering in GitLab, end to end through the reference server run as a user runs it: a GitLab
 * source (kind `gitlab`) receives a note that mentions the agent on an issue; a trusted person's
 * mention starts a run of an automation with `report_to_github`, which awards 👀 on the note and
 * answers with one note (its outcome, with a link to the run); the built-in agent (driven by a
 * scripted model) pushes a branch, opens a merge request from it with its GitLab tool and labels
 * the issue. A stranger's mention starts nothing; without `allowed_actors` the project's writers
 * command it, asked of GitLab (a Developer's mention runs, a Reporter's does not). A follow-up in
 * the same issue continues the conversation, and the agent's second merge request is refused. A
 * note on a merge request's diff line is answered by a reply in its discussion. A token GitLab
 * refuses is recorded on the run, which still completes. In confirmation mode an action held for
 * approval is posted as a note: a stranger's `/approve` does nothing, a trusted one releases it;
 * `@agent stop` from a trusted person stops the run (a stranger's does not).
 *
 * GitLab is a stand-in on loopback that checks every request against GitLab's description of the
 * operation, in front of a real git server on the same origin (as a self-managed GitLab serves
 * both); the platform calls it with the real `@gitbeaker/rest`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { startGitLabApi, type GitLabApi } from '@agent-platform/testing/gitlab-api';
import { apiClient, type ApiCall } from './support/http-api.js';
import { pollFor, until } from './support/polling.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { call, latestAsk, stepOf } from './support/scripted-steps.js';
import { postEvent } from './support/signed-events.js';

const KEY = 'e2e-gitlab-answers-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 23).toString('base64');
const LLM_KEY = 'sk-e2e-gitlab-answers-llm-4242';
const TOKEN = 'glpat-e2e-answers-token-5d2c8e';
const AGENT = 'acme-agent';

/** Whether a follow-up's model request held the first run's answer (the conversation went on). */
const followUpsSawHistory: boolean[] = [];

/**
 * The model. In `acme/app`: a first request pushes a branch, opens a merge request, labels the
 * issue and finishes; a follow-up commits on the same branch, tries a second merge request and
 * finishes; a question on a diff line is answered at once. Elsewhere it finishes at once.
 */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const { asked, step, all } = latestAsk(request);
  if (!all.includes('acme/app')) return call('finish', { message: 'Nothing I can change here.' });
  if (asked.includes('why this line')) return call('finish', { message: 'This line keeps the cache warm.' });
  if (asked.includes('say hello')) return call('finish', { message: 'Hello from the team agent.' });
  if (asked.includes('deploy carefully'))
    return stepOf([call('terminal', { command: 'echo deployed' }), call('finish', { message: 'Deployed with care.' })], step);
  if (asked.includes('slow task'))
    return stepOf([call('terminal', { command: 'sleep 30 && echo slept' }), call('finish', { message: 'Slow work done.' })], step);
  if (asked.includes('also the docs')) {
    if (step === 0) followUpsSawHistory.push(all.includes('Opened a merge request with the fix'));
    return stepOf(
      [
        call('terminal', { command: 'echo "docs" > docs.txt && git add docs.txt && git commit -q -m "Docs" && git push -q origin HEAD && echo pushed' }),
        call('create_merge_request', { title: 'Another one', head: 'agent/other' }),
        call('finish', { message: 'Pushed the docs to the same branch.' }),
      ],
      step,
    );
  }
  return stepOf(
    [
      call('terminal', {
        command:
          'git checkout -q -b agent/fix-crash && echo "fixed" > fix.txt && git add fix.txt && git commit -q -m "Fix the crash" && git push -q origin agent/fix-crash && echo pushed',
      }),
      call('create_merge_request', { title: 'Fix the crash on start', head: 'agent/fix-crash', body: 'Fixes the crash reported in the issue.' }),
      call('gitlab_add_labels', { labels: ['bug'] }),
      call('finish', { message: 'Opened a merge request with the fix, and labelled this issue `bug`.' }),
    ],
    step,
  );
}

describe('a GitLab-triggered run answers in GitLab', () => {
  let git: GitServer;
  let gitlab: GitLabApi;
  let llm: FakeLlmServer;
  let server: RunningServer;
  let api: ApiCall;
  let eventsPath = '';
  let secret = '';
  /** The first run's issue and run: the follow-up continues there. */
  let firstIssue = 0;
  let firstRun: any = null;
  /** The automation that takes commands from carol (`allowed_actors`). */
  let agentId = '';

  const project = (path: string) => ({ id: gitlab.state.project(path)?.id ?? 1, path_with_namespace: path, web_url: `${gitlab.url}/${path}` });
  /** A note event as GitLab sends it, by `username`, on an issue or a merge request. */
  const sendNote = async (
    path: string,
    on: { issue: number } | { mergeRequest: number },
    note: { id: number; discussionId: string; body: string; username: string; type?: string },
  ) => {
    const userId = gitlab.addUser(note.username);
    const noteable =
      'issue' in on
        ? { issue: { iid: on.issue, title: 'Crash on start', description: 'The app crashes on start.' } }
        : { merge_request: { iid: on.mergeRequest, title: 'Add cache', source_branch: 'feature/cache', source_project_id: project(path).id } };
    const body = JSON.stringify({
      object_kind: 'note',
      event_type: 'note',
      user: { id: userId, username: note.username, name: note.username },
      project_id: project(path).id,
      project: project(path),
      object_attributes: {
        id: note.id,
        note: note.body,
        noteable_type: 'issue' in on ? 'Issue' : 'MergeRequest',
        discussion_id: note.discussionId,
        type: note.type ?? null,
        system: false,
        action: 'create',
      },
      ...noteable,
    });
    return postEvent(`${server.baseUrl}${eventsPath}`, body, {
      'content-type': 'application/json',
      'x-gitlab-event': 'Note Hook',
      'x-gitlab-token': secret,
      'idempotency-key': randomUUID(),
    });
  };
  /** What a delivery did for the automation of `agentId`. */
  const outcomeOf = async (delivery: { delivery_id: string }) =>
    ((await api('GET', `/api/automation/v1/deliveries/${delivery.delivery_id}`)).json.outcomes as any[]).find((one) => one.automation_id === agentId);
  const statusOf = async (runId: string) => (await api('GET', `/api/automation/v1/runs/${runId}`)).json.status as string;
  /**
   * The run once it ended and its outcome was reported (its note is named as soon as "on it" is
   * posted, and owed until the outcome replaces it), or refused.
   */
  const reportedRun = (runId: string): Promise<any> =>
    pollFor(
      async () => (await api('GET', `/api/automation/v1/runs/${runId}`)).json,
      (run) => {
        const reported = (run?.report?.comment_id && run.report.comment_due !== true) || run?.report?.error?.startsWith('the outcome comment');
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run?.status) && reported;
      },
      'the run was not reported',
    );
  const agentNotes = (path: string, on: { issue: number } | { mergeRequest: number }) =>
    gitlab.notes(path, on).filter((note) => note.author.username === AGENT);

  beforeAll(async () => {
    // GitLab takes a token as the password of the `oauth2` user over HTTPS (or, here, loopback HTTP).
    git = await startGitServer({ token: TOKEN, username: 'oauth2' });
    await git.createRepository('acme/app', { files: { 'README.md': '# app\n' }, branches: { 'feature/cache': { 'cache.txt': 'warm\n' } } });
    await git.createRepository('acme/locked', { files: { 'README.md': '# locked\n' } });
    gitlab = await startGitLabApi({ tokens: { [TOKEN]: { username: AGENT, readOnly: ['acme/locked'] } }, git });
    gitlab.addProject('acme/app');
    gitlab.addProject('acme/locked');
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_PUBLIC_URL: 'https://agents.example.com',
    });
    api = apiClient(server.baseUrl, KEY);
    const settings = await api('POST', '/api/settings', {
      llm_model: 'openai/gpt-4o',
      llm_api_key: LLM_KEY,
      llm_base_url: `${llm.url}/v1`,
      git_user_name: 'Alice Agent',
      git_user_email: 'alice@example.com',
    });
    expect(settings.status).toBe(200);
    // The stand-in's origin is the self-managed GitLab: its API under /api/v4, its repositories beside it.
    expect((await api('POST', '/api/add-git-providers', { provider_tokens: { gitlab: { token: TOKEN, host: gitlab.url } } })).status).toBe(200);
    const source = await api('POST', '/api/automation/v1/webhooks', { name: 'Our GitLab', kind: 'gitlab', source: 'gitlab' });
    expect(source.status, JSON.stringify(source.json)).toBe(201);
    eventsPath = new URL(source.json.webhook_url).pathname;
    secret = source.json.webhook_secret;
    const created = await api('POST', '/api/automation/v1', {
      name: 'Agent in GitLab',
      trigger: { type: 'event', source: 'gitlab', mention: '@agent' },
      allowed_actors: ['carol'],
      instructions: 'Do what the note asks, and say what you did.',
      report_to_github: true,
    });
    expect(created.status).toBe(201);
    agentId = created.json.id;
    // Without `allowed_actors`: the project's writers, asked of GitLab (Developer and up).
    const forWriters = await api('POST', '/api/automation/v1', {
      name: 'Team agent',
      trigger: { type: 'event', source: 'gitlab', mention: '@team-agent' },
      instructions: 'Answer the note.',
      report_to_github: true,
    });
    expect(forWriters.status).toBe(201);
    gitlab.addMember('acme/app', 'dave', 30);
    gitlab.addMember('acme/app', 'erin', 20);
  }, 120_000);

  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
    await gitlab?.close();
    await git?.close();
    const logs = server?.output.join('') ?? '';
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(LLM_KEY);
  }, 60_000);

  it('awards 👀, opens the merge request the agent asked for, labels, and answers with the outcome and a link to the run', async () => {
    const issue = gitlab.addIssue('acme/app', { title: 'Crash on start' });
    const asked = gitlab.addNote('acme/app', { issue }, { body: '@agent fix this', author: 'carol' });
    const delivered = await sendNote('acme/app', { issue }, { ...asked, body: '@agent fix this', username: 'carol' });
    expect(delivered.matched).toBe(1);
    const run = await reportedRun(delivered.runs_created[0]!);

    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    expect(gitlab.awards('acme/app', { issue }, asked.id).map((award) => [award.name, award.user.username])).toEqual([['eyes', AGENT]]);
    expect(await git.readFile('acme/app', 'refs/heads/agent/fix-crash', 'fix.txt')).toBe('fixed\n');
    expect(
      gitlab.mergeRequests('acme/app').map((mr) => ({ title: mr.title, source: mr.sourceBranch, target: mr.targetBranch, author: mr.author.username })),
    ).toEqual([{ title: 'Fix the crash on start', source: 'agent/fix-crash', target: 'main', author: AGENT }]);
    expect(gitlab.mergeRequests('acme/app')[0]?.description).toContain('Fixes the crash reported in the issue.');
    expect(gitlab.labels('acme/app', { issue })).toEqual(['bug']);
    const answers = agentNotes('acme/app', { issue });
    expect(answers).toHaveLength(1);
    expect(answers[0]!.body).toContain('**Agent in GitLab** ✅ completed.');
    expect(answers[0]!.body).toContain('Opened a merge request with the fix, and labelled this issue `bug`.');
    expect(answers[0]!.body).toContain(`[Run \`${run.id}\`](https://agents.example.com/console/runs/${run.id})`);
    expect(run.report).toMatchObject({
      target: `acme/app#${issue}`,
      reaction: 'added',
      comment_id: answers[0]!.id,
      comment_url: `${gitlab.url}/acme/app/-/issues/${issue}#note_${answers[0]!.id}`,
      error: null,
    });
    expect(answers[0]!.body).not.toContain(TOKEN);
    expect(gitlab.violations).toEqual([]);
    firstIssue = issue;
    firstRun = run;
  });

  it('starts nothing for someone the automation does not trust', async () => {
    const issue = gitlab.addIssue('acme/app', { title: 'Please' });
    const asked = gitlab.addNote('acme/app', { issue }, { body: '@agent delete everything', author: 'mallory' });
    const delivered = await sendNote('acme/app', { issue }, { ...asked, body: '@agent delete everything', username: 'mallory' });
    expect(delivered.runs_created).toEqual([]);
    expect(gitlab.awards('acme/app', { issue }, asked.id)).toEqual([]);
    expect(agentNotes('acme/app', { issue })).toEqual([]);
  });

  it('takes commands from the project’s writers by default, asked of GitLab: a Developer’s runs, a Reporter’s does not', async () => {
    const issue = gitlab.addIssue('acme/app', { title: 'Greetings' });
    const fromReporter = gitlab.addNote('acme/app', { issue }, { body: '@team-agent say hello', author: 'erin' });
    expect((await sendNote('acme/app', { issue }, { ...fromReporter, body: '@team-agent say hello', username: 'erin' })).runs_created).toEqual([]);
    const fromDeveloper = gitlab.addNote('acme/app', { issue }, { body: '@team-agent say hello', author: 'dave' });
    const delivered = await sendNote('acme/app', { issue }, { ...fromDeveloper, body: '@team-agent say hello', username: 'dave' });
    expect(delivered.runs_created).toHaveLength(1);
    const run = await reportedRun(delivered.runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', report: { target: `acme/app#${issue}`, reaction: 'added' } });
    expect(agentNotes('acme/app', { issue }).map((note) => note.body)).toEqual([expect.stringContaining('Hello from the team agent.')]);
    expect(gitlab.awards('acme/app', { issue }, fromReporter.id)).toEqual([]);
    // Each was asked of GitLab once, by user id.
    expect(gitlab.requests.filter((r) => r.operationId === 'getApiV4ProjectsIdMembersAllUserId').map((r) => r.status)).toEqual([200, 200]);
    expect(gitlab.violations).toEqual([]);
  });

  it('continues the thread’s conversation on a follow-up, on the same branch, and refuses a second merge request', async () => {
    expect(firstRun?.status).toBe('COMPLETED');
    const issue = firstIssue;
    const second = gitlab.addNote('acme/app', { issue }, { body: '@agent also the docs', author: 'carol' });
    const run = await reportedRun((await sendNote('acme/app', { issue }, { ...second, body: '@agent also the docs', username: 'carol' })).runs_created[0]!);
    expect(run, JSON.stringify(run.error_detail)).toMatchObject({ status: 'COMPLETED', conversation_id: firstRun.conversation_id });
    expect(followUpsSawHistory).toEqual([true]);
    expect(await git.readFile('acme/app', 'refs/heads/agent/fix-crash', 'docs.txt')).toBe('docs\n');
    // One merge request per thread: the agent's second was refused before GitLab was asked.
    expect(gitlab.mergeRequests('acme/app').map((mr) => mr.sourceBranch)).toEqual(['agent/fix-crash']);
    const answers = agentNotes('acme/app', { issue });
    expect(answers).toHaveLength(2);
    expect(answers[1]!.body).toContain('Pushed the docs to the same branch.');
    expect(gitlab.awards('acme/app', { issue }, second.id).map((award) => award.name)).toEqual(['eyes']);
    expect(gitlab.violations).toEqual([]);
  });

  it('answers a note on a merge request’s diff line by a reply in its discussion', async () => {
    const request = gitlab.addMergeRequest('acme/app', { sourceBranch: 'feature/cache', title: 'Add cache' });
    const asked = gitlab.addNote('acme/app', { mergeRequest: request }, { body: '@agent why this line?', author: 'carol', type: 'DiffNote' });
    const delivered = await sendNote('acme/app', { mergeRequest: request }, { ...asked, body: '@agent why this line?', username: 'carol', type: 'DiffNote' });
    const run = await reportedRun(delivered.runs_created[0]!);
    expect(run, JSON.stringify(run.error_detail)).toMatchObject({ status: 'COMPLETED', report: { target: `acme/app!${request}`, reaction: 'added' } });
    const answers = agentNotes('acme/app', { mergeRequest: request });
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ discussionId: asked.discussionId, type: 'DiscussionNote' });
    expect(answers[0]!.body).toContain('This line keeps the cache warm.');
    expect(gitlab.awards('acme/app', { mergeRequest: request }, asked.id).map((award) => award.name)).toEqual(['eyes']);
    expect(gitlab.violations).toEqual([]);
  });

  it('records a token GitLab refuses on the run, which still completes', async () => {
    const issue = gitlab.addIssue('acme/locked', { title: 'Please look' });
    const asked = gitlab.addNote('acme/locked', { issue }, { body: '@agent look', author: 'carol' });
    const run = await reportedRun((await sendNote('acme/locked', { issue }, { ...asked, body: '@agent look', username: 'carol' })).runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', report: { target: `acme/locked#${issue}`, reaction: 'failed', comment_id: null } });
    expect(run.report.error).toMatch(/^the outcome comment could not be posted: GitLab answered 403: 403 Forbidden/);
    expect(agentNotes('acme/locked', { issue })).toEqual([]);
  });
  it('in confirmation mode the held action is posted as a note; a stranger’s /approve does nothing, a trusted /approve releases it', async () => {
    expect((await api('POST', '/api/settings', { confirmation_mode: true })).status).toBe(200);
    try {
      const issue = gitlab.addIssue('acme/app', { title: 'Deploy' });
      const asked = gitlab.addNote('acme/app', { issue }, { body: '@agent deploy carefully', author: 'carol' });
      const [runId] = (await sendNote('acme/app', { issue }, { ...asked, body: '@agent deploy carefully', username: 'carol' })).runs_created;
      const asking = () => agentNotes('acme/app', { issue }).find((note) => note.body.includes('waits for approval'));
      await until(() => asking() !== undefined);
      expect(asking()!.body).toContain('`terminal`');
      expect(asking()!.body).toContain('echo deployed');
      expect(await statusOf(runId!)).toBe('RUNNING');

      const fromStranger = gitlab.addNote('acme/app', { issue }, { body: '/approve', author: 'mallory' });
      const refused = await sendNote('acme/app', { issue }, { ...fromStranger, body: '/approve', username: 'mallory' });
      expect(refused.runs_created).toEqual([]);
      expect(await outcomeOf(refused)).toMatchObject({ matched: false, reason: 'actor_refused', error: expect.stringContaining('@mallory is not one of') });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await statusOf(runId!)).toBe('RUNNING');

      const fromCarol = gitlab.addNote('acme/app', { issue }, { body: '/approve go ahead', author: 'carol' });
      const answered = await sendNote('acme/app', { issue }, { ...fromCarol, body: '/approve go ahead', username: 'carol' });
      expect(answered.runs_created).toEqual([]);
      expect(await outcomeOf(answered)).toMatchObject({ matched: true, reason: 'thread_command' });
      const run = await reportedRun(runId!);
      expect(run, JSON.stringify(run.error_detail)).toMatchObject({ status: 'COMPLETED' });
      expect(agentNotes('acme/app', { issue }).some((note) => note.body.includes('Deployed with care.'))).toBe(true);
      expect(gitlab.violations).toEqual([]);
    } finally {
      await api('POST', '/api/settings', { confirmation_mode: false });
    }
  }, 90_000);

  it('"@agent stop" from a trusted person stops the run (a stranger’s does not), and the outcome says who stopped it', async () => {
    const issue = gitlab.addIssue('acme/app', { title: 'Slow one' });
    const asked = gitlab.addNote('acme/app', { issue }, { body: '@agent slow task please', author: 'carol' });
    const [runId] = (await sendNote('acme/app', { issue }, { ...asked, body: '@agent slow task please', username: 'carol' })).runs_created;
    await until(async () => (await statusOf(runId!)) === 'RUNNING');

    const fromStranger = gitlab.addNote('acme/app', { issue }, { body: '@agent stop', author: 'mallory' });
    const refused = await sendNote('acme/app', { issue }, { ...fromStranger, body: '@agent stop', username: 'mallory' });
    expect(await outcomeOf(refused)).toMatchObject({ matched: false, reason: 'actor_refused' });
    expect(await statusOf(runId!)).toBe('RUNNING');

    const fromCarol = gitlab.addNote('acme/app', { issue }, { body: '@agent stop', author: 'carol' });
    const stopped = await sendNote('acme/app', { issue }, { ...fromCarol, body: '@agent stop', username: 'carol' });
    expect(stopped.runs_created).toEqual([]);
    expect(await outcomeOf(stopped)).toMatchObject({ matched: true, reason: 'thread_command', detail: `stop from @carol: cancels ${runId}` });
    const run = await reportedRun(runId!);
    expect(run).toMatchObject({ status: 'CANCELLED', error_detail: expect.stringContaining('stopped by @carol from the thread') });
    const outcome = agentNotes('acme/app', { issue }).at(-1)!.body;
    expect(outcome).toContain('was cancelled');
    expect(outcome).toContain('stopped by @carol');
    expect(gitlab.violations).toEqual([]);
  }, 90_000);
});
