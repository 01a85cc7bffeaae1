/**
 * The owner's `language`, end to end through the reference server run as a user runs it: a signed
 * GitHub `issue_comment` event starts a run of an automation with `report_to_github`; the built-in
 * agent (a scripted model that answers in German when its instructions say so, as a model does)
 * finishes; the outcome comment on the GitHub stand-in is in German for an owner whose `language`
 * is `de` — its headline, its link, the agent's answer — and in English for an owner without one.
 * A `language` that is not a BCP 47 tag is a 422 at settings save.
 *
 * GitHub is the stand-in of `github-reporting.test.ts`: it checks every request and answer against
 * GitHub's published OpenAPI description; the platform calls it with the real `@octokit/rest`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { startGitHubApi, type GitHubApi } from '@agent-platform/testing/github-api';
import { apiClient, type ApiCall } from './support/http-api.js';
import { pollFor } from './support/polling.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { call } from './support/scripted-steps.js';
import { githubHeaders, postEvent } from './support/signed-events.js';

const KEY = 'e2e-owner-language-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 29).toString('base64');
const LLM_KEY = 'sk-e2e-owner-language-llm-7373';
const TOKEN = 'ghp_e2e_language_token_4b2d9e';
const WEBHOOK_SECRET = 'e2e-owner-language-webhook-secret';
const BOT = 'acme-agent[bot]';

/** The model: its answer in German when its system prompt asks for German, else in English. */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const system = String((request.body.messages as { role: string; content: unknown }[])[0]?.content ?? '');
  const german = system.includes("The user's language is German (Deutsch)");
  return call('finish', { message: german ? 'Ich habe mir das Problem angesehen.' : 'I looked into the problem.' });
}

describe("the owner's language on GitHub", () => {
  let git: GitServer;
  let github: GitHubApi;
  let llm: FakeLlmServer;
  let server: RunningServer;
  let api: ApiCall;

  const settings = (language: string | null) =>
    api('POST', '/api/settings', {
      llm_model: 'openai/gpt-4o',
      llm_api_key: LLM_KEY,
      llm_base_url: `${llm.url}/v1`,
      enable_solvability_analysis: false,
      language,
    });
  /** A comment asking the agent, on a new issue; resolves to the issue and the run it started. */
  const ask = async () => {
    const issue = github.addIssue('acme/app', { title: 'Crash on start' });
    const comment = github.addIssueComment('acme/app', issue, { body: '@agent look', user: 'carol' });
    const body = JSON.stringify({
      action: 'created',
      issue: { number: issue, title: 'Crash on start' },
      comment: { id: comment, body: '@agent look', user: { login: 'carol', type: 'User' }, author_association: 'OWNER' },
      sender: { login: 'carol', type: 'User' },
      repository: { full_name: 'acme/app', owner: { login: 'acme' } },
    });
    const {
      runs_created: [runId],
    } = await postEvent(`${server.baseUrl}/api/automation/v1/events/github`, body, githubHeaders(WEBHOOK_SECRET, 'issue_comment', body));
    return { issue, runId: runId! };
  };
  /** The run once it ended and its outcome comment is posted. */
  const reported = (runId: string): Promise<any> =>
    pollFor(
      async () => (await api('GET', `/api/automation/v1/runs/${runId}`)).json,
      (run) => run?.status === 'COMPLETED' && run.report?.comment_id && run.report.comment_due !== true,
      'the run was not reported',
    );
  const commentsOn = (issue: number) => github.comments('acme/app', issue).filter((comment) => comment.user.login === BOT);

  beforeAll(async () => {
    git = await startGitServer({ token: TOKEN });
    await git.createRepository('acme/app', { files: { 'README.md': '# app\n' } });
    github = await startGitHubApi({ tokens: { [TOKEN]: { login: BOT, type: 'Bot' } }, git });
    github.addRepository('acme/app');
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
    expect((await settings(null)).status).toBe(200);
    expect((await api('POST', '/api/add-git-providers', { provider_tokens: { github: { token: TOKEN, host: github.url } } })).status).toBe(200);
    const created = await api('POST', '/api/automation/v1', {
      name: 'Look on request',
      trigger: { type: 'event', source: 'github', on: 'issue_comment.created', filter: "contains(comment.body, '@agent')" },
      instructions: 'Look into what the comment asks about, and say what you found.',
      report_to_github: true,
    });
    expect(created.status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
    await github?.close();
    await git?.close();
    expect(server?.output.join('') ?? '').not.toContain(TOKEN);
  }, 60_000);

  it('a German owner: the model is told German, and the outcome comment is in German', async () => {
    expect((await settings('de')).status).toBe(200);
    expect((await api('GET', '/api/settings')).json.language).toBe('de');
    const { issue, runId } = await ask();
    const run = await reported(runId);

    const [comment] = commentsOn(issue);
    expect(commentsOn(issue)).toHaveLength(1);
    expect(comment!.body).toContain('**Look on request** ✅ abgeschlossen.');
    expect(comment!.body).toContain('Ich habe mir das Problem angesehen.');
    expect(comment!.body).toContain(`[Lauf \`${run.id}\`](https://agents.example.com/console/runs/${run.id})`);
    expect(comment!.body).not.toContain('completed');
    // What the model was told.
    const system = String(llm.requests.at(-1)!.body.messages[0].content);
    expect(system).toContain("The user's language is German (Deutsch), BCP 47 tag de.");
    expect(github.violations).toEqual([]);
  });

  it('an owner without a language: English', async () => {
    expect((await settings(null)).status).toBe(200);
    const { issue, runId } = await ask();
    const run = await reported(runId);
    const [comment] = commentsOn(issue);
    expect(comment!.body).toContain('**Look on request** ✅ completed.');
    expect(comment!.body).toContain('I looked into the problem.');
    expect(comment!.body).toContain(`[Run \`${run.id}\`](https://agents.example.com/console/runs/${run.id})`);
    expect(String(llm.requests.at(-1)!.body.messages[0].content)).not.toContain("The user's language");
    expect(github.violations).toEqual([]);
  });

  it('a language that is not a BCP 47 tag is a 422, and the stored one stays', async () => {
    expect((await settings('pt-br')).status).toBe(200);
    const refused = await settings('Deutsch!');
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'language'], msg: 'language must be a BCP 47 language tag, such as en, de, pt-BR or zh-CN' }),
    ]);
    expect((await api('GET', '/api/settings')).json.language).toBe('pt-BR');
  });
});
