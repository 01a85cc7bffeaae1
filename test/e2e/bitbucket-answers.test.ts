/**
 * Answering on Bitbucket Cloud, end to end through the reference server run as a user runs it: a
 * signed `pullrequest:comment_created` event from a Bitbucket source starts a run of an automation
 * with `report_to_github`; the run's "on it" comment (Bitbucket has no reactions: it is the
 * acknowledgement) appears in the pull request when the run starts, and is edited to the outcome —
 * the agent's final answer and a link to the run — when it ends. The agent, in the repository
 * cloned from Bitbucket at the pull request's branch, pushes a branch and opens a pull request
 * from it with its `create_pull_request` tool. A pull request Bitbucket does not know is recorded
 * on the run, which still COMPLETES. In confirmation mode an action held for approval is posted
 * as a comment: a stranger's `/approve` does nothing, a writer's releases it; `@helper stop` from
 * a writer stops the run (a stranger's does not).
 *
 * Bitbucket is a stand-in on loopback that checks every request and answer against Bitbucket's
 * published OpenAPI description, in front of a real git server on the same origin; the model is
 * scripted.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBitbucketApi, type BitbucketApi } from '@agent-platform/testing/bitbucket-api';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { apiClient, type ApiCall } from './support/http-api.js';
import { pollFor, until } from './support/polling.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { call, latestAsk, stepOf } from './support/scripted-steps.js';
import { postEvent, sha256Signature } from './support/signed-events.js';

const KEY = 'e2e-bitbucket-answers-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 23).toString('base64');
const LLM_KEY = 'sk-e2e-bitbucket-answers-llm-7272';
const TOKEN = 'bb_e2e_answers_access_token_5d1e';
const WEBHOOK_SECRET = 'e2e-bitbucket-answers-webhook-secret';
const CAROL = { nickname: 'carol', account_id: '557058:carol' };

/** Whether a follow-up's model request held the first answer in its thread (the conversation went on). */
const followUpsSawHistory: boolean[] = [];

/**
 * The model. Asked to fix: pushes a branch and opens a pull request from it. Asked by `@helper`:
 * answers, and on a follow-up notes whether it saw its first answer. Otherwise it answers at once,
 * naming the pull request.
 */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const latest = latestAsk(request);
  const { step, all } = latest;
  // Unescaped, so the event's JSON in the task can be read (the pull request's id below).
  const asked = latest.asked.replace(/\\"/g, '"');
  if (asked.includes('deploy carefully'))
    return stepOf([call('terminal', { command: 'echo deployed' }), call('finish', { message: 'Deployed with care.' })], step);
  if (asked.includes('slow task'))
    return stepOf([call('terminal', { command: 'sleep 30 && echo slept' }), call('finish', { message: 'Slow work done.' })], step);
  if (asked.includes('@helper and the tests?')) {
    followUpsSawHistory.push(all.includes('Helper: the crash comes from start-up.'));
    return call('finish', { message: 'Helper: the tests pass now.' });
  }
  if (asked.includes('@helper')) return call('finish', { message: 'Helper: the crash comes from start-up.' });
  if (asked.includes('@agent please fix')) {
    return stepOf(
      [
        call('terminal', {
          command:
            'git checkout -q -b agent/null-check && echo "checked" > fix.txt && git add fix.txt && git commit -q -m "Check for null" && git push -q origin agent/null-check && echo pushed',
        }),
        call('create_pull_request', { title: 'Check for null on start', head: 'agent/null-check', body: 'Adds the missing null check.' }),
        call('finish', { message: 'Opened a pull request with the null check.' }),
      ],
      step,
    );
  }
  const pull = /"pullrequest":\{[^}]*"id":(\d+)/.exec(asked)?.[1] ?? '?';
  return call('finish', { message: `Looked at pull request ${pull}: the crash comes from a missing null check.` });
}

describe('a Bitbucket-triggered run answers in its pull request', () => {
  let git: GitServer;
  let bitbucket: BitbucketApi;
  let llm: FakeLlmServer;
  let server: RunningServer;
  let api: ApiCall;
  let eventsPath: string;

  /** A comment event as Bitbucket sends it, signed as Bitbucket signs (`X-Hub-Signature: sha256=…`). */
  const send = async (pull: number, comment: number, text = '@agent why does it crash?', actor: { nickname: string; account_id: string } = CAROL) => {
    const body = JSON.stringify({
      actor: { type: 'user', display_name: actor.nickname, ...actor },
      repository: { type: 'repository', full_name: 'acme/app', name: 'app', uuid: '{a0000000-0000-4000-8000-000000000001}' },
      pullrequest: {
        type: 'pullrequest',
        id: pull,
        title: 'Crash on start',
        description: 'The app crashes on start.',
        source: { branch: { name: 'feature/crash' }, repository: { full_name: 'acme/app' } },
        destination: { branch: { name: 'main' }, repository: { full_name: 'acme/app' } },
      },
      comment: { type: 'pullrequest_comment', id: comment, content: { raw: text } },
    });
    return postEvent(`${server.baseUrl}${eventsPath}`, body, {
      'content-type': 'application/json',
      'x-event-key': 'pullrequest:comment_created',
      'x-request-uuid': randomUUID(),
      'x-hub-signature': sha256Signature(WEBHOOK_SECRET, body),
    });
  };
  /** The automation that takes `@helper` mentions from the repository's writers. */
  let helperId = '';
  /** What a delivery did for the `@helper` automation. */
  const outcomeOf = async (delivery: { delivery_id: string }) =>
    ((await api('GET', `/api/automation/v1/deliveries/${delivery.delivery_id}`)).json.outcomes as any[]).find((one) => one.automation_id === helperId);
  const statusOf = async (runId: string) => (await api('GET', `/api/automation/v1/runs/${runId}`)).json.status as string;
  const agentComments = (pull: number) => bitbucket.comments('acme/app', pull).filter((comment) => comment.user.nickname === 'acme-agent');

  /** The run once it ended and its outcome was reported, or refused. */
  const reportedRun = (runId: string): Promise<any> =>
    pollFor(
      async () => (await api('GET', `/api/automation/v1/runs/${runId}`)).json,
      (run) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run?.status) && (run.report?.comment_id || run.report?.error?.startsWith('the outcome comment')),
      'the run was not reported',
    );

  beforeAll(async () => {
    git = await startGitServer({ token: TOKEN, username: 'x-token-auth' });
    await git.createRepository('acme/app', { branches: { 'feature/crash': { 'crash.txt': 'crash\n' } } });
    bitbucket = await startBitbucketApi({ tokens: { [TOKEN]: { nickname: 'acme-agent', type: 'app_user' } }, git });
    bitbucket.addRepository('acme/app');
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_PUBLIC_URL: 'https://agents.example.com',
    });
    api = apiClient(server.baseUrl, KEY);
    expect((await api('POST', '/api/settings', { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1` })).status).toBe(200);
    // The stand-in's origin serves the git repositories and, under /2.0, the API.
    expect((await api('POST', '/api/add-git-providers', { provider_tokens: { bitbucket: { token: TOKEN, host: bitbucket.url } } })).status).toBe(200);
    const source = await api('POST', '/api/automation/v1/webhooks', {
      name: 'Acme workspace',
      kind: 'bitbucket',
      source: 'bitbucket',
      webhook_secret: WEBHOOK_SECRET,
    });
    expect(source.status, JSON.stringify(source.json)).toBe(201);
    eventsPath = new URL(source.json.webhook_url).pathname;
    const created = await api('POST', '/api/automation/v1', {
      name: 'Answer on request',
      trigger: { type: 'event', source: 'bitbucket', on: 'pullrequest:comment_created', filter: "contains(comment.content.raw, '@agent')" },
      // A list of people needs no permission lookup.
      allowed_actors: ['carol'],
      instructions: 'Answer what the comment asks.',
      report_to_github: true,
    });
    expect(created.status).toBe(201);
    // Taking commands from people with write permission on the repository (the default), asked of Bitbucket.
    const helper = await api('POST', '/api/automation/v1', {
      name: 'Helper',
      trigger: { type: 'event', source: 'bitbucket', mention: '@helper' },
      instructions: 'Answer what the comment asks.',
      report_to_github: true,
    });
    expect(helper.status, JSON.stringify(helper.json)).toBe(201);
    helperId = helper.json.id;
  }, 90_000);

  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
    await bitbucket?.close();
    await git?.close();
    const logs = server?.output.join('') ?? '';
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(LLM_KEY);
  }, 60_000);

  it('posts "on it" as the acknowledgement, then edits it to the outcome with a link to the run', async () => {
    const pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash', title: 'Crash on start', author: 'carol' });
    const asked = bitbucket.addComment('acme/app', pull, { raw: '@agent why does it crash?', user: 'carol' });
    const delivered = await send(pull, asked);
    expect(delivered.matched).toBe(1);
    const run = await reportedRun(delivered.runs_created[0]!);

    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    const mine = bitbucket.comments('acme/app', pull).filter((comment) => comment.user.nickname === 'acme-agent');
    expect(mine).toHaveLength(1);
    const [answer] = mine;
    // The hidden marker first, as Bitbucket renders nothing of; then the outcome and the run's link.
    expect(answer!.raw.split('\n')[0]).toBe(`[//]: # "<!-- agent-platform run ${run.id} -->"`);
    expect(answer!.raw).toContain('**Answer on request** ✅ completed.');
    expect(answer!.raw).toContain(`Looked at pull request ${pull}: the crash comes from a missing null check.`);
    expect(answer!.raw).toContain(`[Run \`${run.id}\`](https://agents.example.com/console/runs/${run.id})`);
    expect(answer!.raw).not.toContain(TOKEN);
    expect(run.report).toMatchObject({ target: `acme/app#${pull}`, reaction: 'added', comment_id: answer!.id, error: null });
    expect(run.report.comment_url).toBe(`${bitbucket.url}/acme/app/pull-requests/${pull}#comment-${answer!.id}`);
    // Posted once ("on it"), then edited: never a second comment.
    const calls = bitbucket.requests.map((request) => request.operationId);
    expect(calls.filter((operation) => operation === 'createACommentOnAPullRequest')).toHaveLength(1);
    expect(calls).toContain('updateACommentOnAPullRequest');
    expect(bitbucket.requests.every((request) => request.auth === 'bearer')).toBe(true);
    expect(bitbucket.violations).toEqual([]);
  });

  it('the agent pushes a branch and opens a pull request from it with its Bitbucket tool', async () => {
    const pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash', title: 'Crash on start', author: 'carol' });
    const asked = bitbucket.addComment('acme/app', pull, { raw: '@agent please fix', user: 'carol' });
    const delivered = await send(pull, asked, '@agent please fix');
    const run = await reportedRun(delivered.runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });

    // Cloned from Bitbucket at the pull request's branch, with the owner's token; pushed back there.
    expect(await git.readFile('acme/app', 'refs/heads/agent/null-check', 'fix.txt')).toBe('checked\n');
    expect(await git.readFile('acme/app', 'refs/heads/agent/null-check', 'crash.txt')).toBe('crash\n');
    const opened = bitbucket.pulls('acme/app').find((pr) => pr.source === 'agent/null-check');
    expect(opened).toMatchObject({ title: 'Check for null on start', destination: 'main', author: { nickname: 'acme-agent' } });
    expect(opened?.description).toBe('Adds the missing null check.\n\n[//]: # "<!-- agent-platform -->"');
    const answer = bitbucket.comments('acme/app', pull).find((comment) => comment.user.nickname === 'acme-agent');
    expect(answer?.raw).toContain('Opened a pull request with the null check.');

    const events = await fetch(`${server.baseUrl}/api/v1/app-conversations/${run.conversation_id}/events?limit=100`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const text = await events.text();
    const items = (JSON.parse(text) as { items: any[] }).items;
    expect(items.filter((event) => event.kind === 'ActionEvent').map((event) => event.data.tool_name)).toEqual(['terminal', 'create_pull_request', 'finish']);
    expect(items.some((event) => event.kind === 'ObservationEvent' && JSON.stringify(event.data).includes(`/acme/app/pull-requests/${opened?.id}`))).toBe(true);
    expect(text).not.toContain(TOKEN);
    expect(bitbucket.violations).toEqual([]);
  });

  it('takes a mention from someone with write permission, continues the thread on a follow-up, and nothing from a stranger', async () => {
    const walt = bitbucket.addUser('walt');
    const mallory = bitbucket.addUser('mallory');
    bitbucket.addPermission('acme/app', 'walt', 'write');
    const pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash', title: 'Crash on start', author: 'walt' });
    const stranger = bitbucket.addComment('acme/app', pull, { raw: '@helper delete everything', user: 'mallory' });
    expect((await send(pull, stranger, '@helper delete everything', { nickname: 'mallory', account_id: mallory.accountId })).runs_created).toEqual([]);

    const asked = bitbucket.addComment('acme/app', pull, { raw: '@helper why?', user: 'walt' });
    const first = await reportedRun((await send(pull, asked, '@helper why?', { nickname: 'walt', account_id: walt.accountId })).runs_created[0]!);
    expect(first).toMatchObject({ status: 'COMPLETED', report: { target: `acme/app#${pull}`, error: null } });
    const again = bitbucket.addComment('acme/app', pull, { raw: '@helper and the tests?', user: 'walt' });
    const followUp = await reportedRun((await send(pull, again, '@helper and the tests?', { nickname: 'walt', account_id: walt.accountId })).runs_created[0]!);
    expect(followUp).toMatchObject({ status: 'COMPLETED', conversation_id: first.conversation_id });
    expect(followUpsSawHistory).toEqual([true]);
    const answers = bitbucket.comments('acme/app', pull).filter((comment) => comment.user.nickname === 'acme-agent');
    expect(answers.map((comment) => comment.raw.includes('Helper: the crash comes from start-up.'))).toEqual([true, false]);
    expect(answers[1]?.raw).toContain('Helper: the tests pass now.');
    // Walt's permission was asked of Bitbucket with the owner's token (and kept for minutes: once).
    expect(bitbucket.requests.filter((request) => request.operationId === 'listARepositoryPermissionsForAWorkspace').map((request) => request.status)).toEqual([
      200, 200,
    ]);
    expect(bitbucket.violations).toEqual([]);
  });

  it('a pull request Bitbucket does not know is recorded on the run, which still COMPLETES', async () => {
    const delivered = await send(4242, 1);
    const run = await reportedRun(delivered.runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', report: { target: 'acme/app#4242', comment_id: null } });
    expect(run.report.error).toMatch(/^the outcome comment could not be posted: Bitbucket answered 404: Pull request 4242 not found/);
    expect(run.report.error).not.toContain(TOKEN);
    expect(bitbucket.violations).toEqual([]);
  });
  it('in confirmation mode the held action is posted as a comment; a stranger’s /approve does nothing, a writer’s releases it', async () => {
    const wendy = bitbucket.addUser('wendy');
    const mallory = bitbucket.addUser('mallory-2');
    bitbucket.addPermission('acme/app', 'wendy', 'write');
    const as = (user: { accountId: string }, nickname: string) => ({ nickname, account_id: user.accountId });
    expect((await api('POST', '/api/settings', { confirmation_mode: true })).status).toBe(200);
    try {
      const pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash', title: 'Deploy', author: 'wendy' });
      const asked = bitbucket.addComment('acme/app', pull, { raw: '@helper deploy carefully', user: 'wendy' });
      const [runId] = (await send(pull, asked, '@helper deploy carefully', as(wendy, 'wendy'))).runs_created;
      const asking = () => agentComments(pull).find((comment) => comment.raw.includes('waits for approval'));
      await until(() => asking() !== undefined);
      expect(asking()!.raw).toContain('`terminal`');
      expect(asking()!.raw).toContain('echo deployed');
      expect(await statusOf(runId!)).toBe('RUNNING');

      const fromStranger = bitbucket.addComment('acme/app', pull, { raw: '/approve', user: 'mallory-2' });
      const refused = await send(pull, fromStranger, '/approve', as(mallory, 'mallory-2'));
      expect(refused.runs_created).toEqual([]);
      expect(await outcomeOf(refused)).toMatchObject({
        matched: false,
        reason: 'actor_refused',
        error: expect.stringContaining('@mallory-2'),
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await statusOf(runId!)).toBe('RUNNING');

      const fromWendy = bitbucket.addComment('acme/app', pull, { raw: '/approve go ahead', user: 'wendy' });
      const answered = await send(pull, fromWendy, '/approve go ahead', as(wendy, 'wendy'));
      expect(answered.runs_created).toEqual([]);
      expect(await outcomeOf(answered)).toMatchObject({ matched: true, reason: 'thread_command' });
      const run = await reportedRun(runId!);
      expect(run, JSON.stringify(run.error_detail)).toMatchObject({ status: 'COMPLETED' });
      expect(agentComments(pull).some((comment) => comment.raw.includes('Deployed with care.'))).toBe(true);
      expect(bitbucket.violations).toEqual([]);
    } finally {
      await api('POST', '/api/settings', { confirmation_mode: false });
    }
  }, 90_000);

  it('"@helper stop" from a writer stops the run (a stranger’s does not), and the outcome says who stopped it', async () => {
    const vera = bitbucket.addUser('vera');
    const mallory = bitbucket.addUser('mallory-3');
    bitbucket.addPermission('acme/app', 'vera', 'write');
    const pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash', title: 'Slow one', author: 'vera' });
    const asked = bitbucket.addComment('acme/app', pull, { raw: '@helper slow task please', user: 'vera' });
    const [runId] = (await send(pull, asked, '@helper slow task please', { nickname: 'vera', account_id: vera.accountId })).runs_created;
    await until(async () => (await statusOf(runId!)) === 'RUNNING');

    const fromStranger = bitbucket.addComment('acme/app', pull, { raw: '@helper stop', user: 'mallory-3' });
    const refused = await send(pull, fromStranger, '@helper stop', { nickname: 'mallory-3', account_id: mallory.accountId });
    expect(await outcomeOf(refused)).toMatchObject({ matched: false, reason: 'actor_refused' });
    expect(await statusOf(runId!)).toBe('RUNNING');

    const fromVera = bitbucket.addComment('acme/app', pull, { raw: '@helper stop', user: 'vera' });
    const stopped = await send(pull, fromVera, '@helper stop', { nickname: 'vera', account_id: vera.accountId });
    expect(stopped.runs_created).toEqual([]);
    expect(await outcomeOf(stopped)).toMatchObject({ matched: true, reason: 'thread_command', detail: `stop from @vera: cancels ${runId}` });
    const run = await reportedRun(runId!);
    expect(run).toMatchObject({ status: 'CANCELLED', error_detail: expect.stringContaining('stopped by @vera from the thread') });
    const outcome = agentComments(pull)[0]!.raw;
    expect(outcome).toContain('was cancelled');
    expect(outcome).toContain('stopped by @vera');
    expect(bitbucket.violations).toEqual([]);
  }, 90_000);
});
