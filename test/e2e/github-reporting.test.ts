/**
 * Answering at the source, end to end through the reference server run as a user runs it: a
 * signed GitHub `issue_comment` event starts a run of an automation with `report_to_github`; the
 * built-in agent (driven by a scripted model) pushes a branch to the repository, opens a pull
 * request from it and labels the issue; the issue's comment gets a 👀 reaction, then one comment
 * with the agent's final answer and a link to the run. A token GitHub refuses is recorded on the
 * run, which still COMPLETES.
 *
 * GitHub is a stand-in on loopback that checks every request and answer against GitHub's
 * published OpenAPI description (`@octokit/openapi`), in front of a real git server on the same
 * origin (as a GitHub Enterprise Server host serves both); the platform calls it with the real
 * `@octokit/rest`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { startGitHubApi, type GitHubApi } from '@agent-platform/testing/github-api';
import { apiClient, type ApiCall } from './support/http-api.js';
import { pollFor } from './support/polling.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { call, firstAsk, stepOf } from './support/scripted-steps.js';
import { githubHeaders, postEvent } from './support/signed-events.js';

const KEY = 'e2e-github-reporting-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 17).toString('base64');
const LLM_KEY = 'sk-e2e-github-reporting-llm-5151';
const TOKEN = 'ghp_e2e_reporting_token_8c3e1d';
const WEBHOOK_SECRET = 'e2e-github-reporting-webhook-secret';

/** The model: in `acme/app`, fix, push, open a pull request, label, finish; elsewhere, finish at once. */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const { asked: task, step } = firstAsk(request);
  if (!task.includes('acme/app')) return call('finish', { message: 'Nothing I can change here.' });
  return stepOf(
    [
      call('terminal', {
        command:
          'git checkout -q -b agent/fix-crash && echo "fixed" > fix.txt && git add fix.txt && git commit -q -m "Fix the crash" && git push -q origin agent/fix-crash && echo pushed',
      }),
      call('create_pull_request', { title: 'Fix the crash on start', head: 'agent/fix-crash', body: 'Fixes the crash reported in the issue.' }),
      call('github_add_labels', { labels: ['bug'] }),
      call('finish', { message: 'Opened a pull request with the fix, and labelled this issue `bug`.' }),
    ],
    step,
  );
}

describe('a GitHub-triggered run reports back on GitHub', () => {
  let git: GitServer;
  let github: GitHubApi;
  let llm: FakeLlmServer;
  let server: RunningServer;
  let api: ApiCall;

  const send = async (repository: string, issue: number, comment: number) => {
    const body = JSON.stringify({
      action: 'created',
      issue: { number: issue, title: 'Crash on start' },
      comment: { id: comment, body: '@agent fix this', user: { login: 'carol', type: 'User' }, author_association: 'OWNER' },
      sender: { login: 'carol', type: 'User' },
      repository: { full_name: repository, owner: { login: 'acme' } },
    });
    return postEvent(`${server.baseUrl}/api/automation/v1/events/github`, body, githubHeaders(WEBHOOK_SECRET, 'issue_comment', body));
  };
  /**
   * The run once it ended and its outcome was reported, or refused (the comment follows the final
   * status; a refused reaction is recorded before it).
   */
  const reportedRun = (runId: string): Promise<any> =>
    pollFor(
      async () => (await api('GET', `/api/automation/v1/runs/${runId}`)).json,
      (run) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run?.status) && (run.report?.comment_id || run.report?.error?.startsWith('the outcome comment')),
      'the run was not reported',
    );

  beforeAll(async () => {
    git = await startGitServer({ token: TOKEN });
    await git.createRepository('acme/app', { files: { 'README.md': '# app\n' } });
    await git.createRepository('acme/locked', { files: { 'README.md': '# locked\n' } });
    github = await startGitHubApi({ tokens: { [TOKEN]: { login: 'acme-agent[bot]', type: 'Bot' } }, git });
    github.addRepository('acme/app');
    github.addRepository('acme/locked');
    github.refuseWrites(TOKEN, 'acme/locked');
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
      AGENT_PLATFORM_GITHUB_LINKS: 'acme=acme',
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
    // The stand-in's origin serves the git repositories and, under /api/v3, the API: a GitHub Enterprise host.
    expect((await api('POST', '/api/add-git-providers', { provider_tokens: { github: { token: TOKEN, host: github.url } } })).status).toBe(200);
    const created = await api('POST', '/api/automation/v1', {
      name: 'Fix on request',
      trigger: { type: 'event', source: 'github', on: 'issue_comment.created', filter: "contains(comment.body, '@agent')" },
      instructions: 'Fix what the comment asks for, open a pull request, and say what you did.',
      report_to_github: true,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ report_to_github: true, github_repositories: [] });
  }, 90_000);

  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
    await github?.close();
    await git?.close();
    const logs = server?.output.join('') ?? '';
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(LLM_KEY);
  }, 60_000);

  it('reacts, opens the pull request the agent asked for, labels, and comments the final answer with a link to the run', async () => {
    const issue = github.addIssue('acme/app', { title: 'Crash on start' });
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent fix this', user: 'carol' });
    const delivered = await send('acme/app', issue, asked);
    expect(delivered.matched).toBe(1);
    const run = await reportedRun(delivered.runs_created[0]!);

    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    expect(github.reactions('acme/app', { comment: asked }).map((reaction) => [reaction.content, reaction.user.login])).toEqual([['eyes', 'acme-agent[bot]']]);
    // The branch the agent pushed, and the pull request from it.
    expect(await git.readFile('acme/app', 'refs/heads/agent/fix-crash', 'fix.txt')).toBe('fixed\n');
    expect(github.pulls('acme/app')).toMatchObject([
      {
        title: 'Fix the crash on start',
        head: 'agent/fix-crash',
        base: 'main',
        body: expect.stringContaining('Fixes the crash reported in the issue.'),
        user: 'acme-agent[bot]',
      },
    ]);
    // Issues and pull requests share their numbers, as on GitHub.
    const pull = github.pulls('acme/app')[0]!.number;
    expect(pull).toBe(issue + 1);
    expect(github.labels('acme/app', issue)).toEqual(['bug']);
    const comments = github.comments('acme/app', issue).filter((comment) => comment.user.login === 'acme-agent[bot]');
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('**Fix on request** ✅ completed.');
    expect(comments[0]!.body).toContain('Opened a pull request with the fix, and labelled this issue `bug`.');
    expect(comments[0]!.body).toContain(`[Run \`${run.id}\`](https://agents.example.com/console/runs/${run.id})`);
    expect(run.report).toMatchObject({ target: `acme/app#${issue}`, reaction: 'added', comment_id: comments[0]!.id, error: null });

    // The tools' calls are in the run's conversation, as actions and observations, without the token.
    const events = await fetch(`${server.baseUrl}/api/v1/app-conversations/${run.conversation_id}/events?limit=100`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const text = await events.text();
    const items = (JSON.parse(text) as { items: any[] }).items;
    const tools = items.filter((event) => event.kind === 'ActionEvent').map((event) => event.data.tool_name);
    expect(tools).toEqual(['terminal', 'create_pull_request', 'github_add_labels', 'finish']);
    expect(items.some((event) => event.kind === 'ObservationEvent' && JSON.stringify(event.data).includes(`/acme/app/pull/${pull}`))).toBe(true);
    expect(text).not.toContain(TOKEN);
    expect(comments[0]!.body).not.toContain(TOKEN);
    expect(github.violations).toEqual([]);
  });

  it('a token GitHub refuses is recorded on the run, which still COMPLETES', async () => {
    const issue = github.addIssue('acme/locked', { title: 'Please look' });
    const asked = github.addIssueComment('acme/locked', issue, { body: '@agent look', user: 'carol' });
    const delivered = await send('acme/locked', issue, asked);
    const run = await reportedRun(delivered.runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', report: { target: `acme/locked#${issue}`, reaction: 'failed', comment_id: null } });
    expect(run.report.error).toMatch(/^the outcome comment could not be posted: GitHub answered 403: Resource not accessible by integration/);
    expect(github.comments('acme/locked', issue).filter((comment) => comment.user.login === 'acme-agent[bot]')).toEqual([]);
    expect(github.violations).toEqual([]);
  });
});
