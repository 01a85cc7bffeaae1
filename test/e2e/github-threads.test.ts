/**
 * The thread is the conversation: a mention automation on GitHub, through the engine with the
 * built-in agent (driven by a scripted model), a real git server and the GitHub stand-in (which
 * checks every request against GitHub's OpenAPI description and answers collaborator roles).
 * Only trusted people command the agent (a stranger, a reader, a bot and the platform's own
 * comments start nothing, and the delivery says why); a collaborator's mention is acknowledged
 * (👀, then one comment "on it" that becomes the outcome); a later mention in the same issue
 * continues the same conversation on the same branch and pull request; a review comment on that
 * pull request is answered in its review thread with a commit on its branch; "@agent stop" stops
 * the thread's run and says who did; two quick mentions run one after the other.
 */
import { createSolvabilityEstimator } from '@agent-platform/agent';
import type { AgentPlatform, Delivery, Run, SandboxRuntime } from '@agent-platform/core';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { startGitHubApi, type GitHubApi } from '@agent-platform/testing/github-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alice, reportedRun, startEngine } from './support/engine-platform.js';
import { until } from './support/polling.js';
import { call, latestAsk, stepOf, textOf, type Message } from './support/scripted-steps.js';
import { githubHeaders } from './support/signed-events.js';

const TOKEN = 'ghp_e2e_threads_token_5e1f00';
const LLM_KEY = 'sk-e2e-threads-llm-8080';
const WEBHOOK_SECRET = 'e2e-threads-webhook-secret';
const AGENT = 'acme-agent[bot]';

/** The issues the solvability estimator was shown. */
const estimatesAsked: string[] = [];

/** Whether the model, on a follow-up, was shown the first exchange (its own first answer). */
const followUpsSawHistory: boolean[] = [];

/**
 * The model. A first request in a thread: push a branch, open a pull request, finish. A
 * follow-up (its last user message says so): note whether the first answer is in the history,
 * commit on the checked-out branch and push it, try to open a second pull request, finish. A
 * `slow` task works for a while first (so a stop or a second mention meets it at work).
 */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const messages = request.body.messages as Message[];
  // The solvability estimate before a run's "on it" is edited.
  if (textOf(messages[0]).includes('You estimate how likely')) {
    estimatesAsked.push(textOf(messages[1]));
    return { text: '{"score": 0.8, "summary": "A clear request with a small scope."}' };
  }
  const { asked, step, all } = latestAsk(request);
  if (asked.includes('slow')) {
    return stepOf([call('terminal', { command: 'sleep 3 && echo slept' }), call('finish', { message: 'Slow work done.' })], step);
  }
  if (asked.includes('Follow-up from')) {
    if (step === 0) followUpsSawHistory.push(all.includes('Opened pull request for the crash'));
    const branchOut = 'git rev-parse --abbrev-ref HEAD';
    return stepOf(
      [
        call('terminal', { command: `echo "more" >> fix.txt && git commit -q -am "Follow-up" && git push -q origin HEAD && ${branchOut}` }),
        call('create_pull_request', { title: 'Another one', head: 'agent/other' }),
        call('finish', { message: 'Pushed the follow-up to the same branch.' }),
      ],
      step,
    );
  }
  return stepOf(
    [
      call('terminal', {
        command:
          'git checkout -q -b agent/fix-crash && echo "fixed" > fix.txt && git add fix.txt && git commit -q -m "Fix" && git push -q origin agent/fix-crash',
      }),
      call('create_pull_request', { title: 'Fix the crash', head: 'agent/fix-crash', body: 'Fixes it. @agent mentioned here must not loop.' }),
      call('finish', { message: 'Opened pull request for the crash.' }),
    ],
    step,
  );
}

let git: GitServer;
let github: GitHubApi;
let llm: FakeLlmServer;
let runtime: SandboxRuntime;
let platform: AgentPlatform;
let automationId: string;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  await git.createRepository('acme/app', { files: { 'README.md': '# app\n' } });
  github = await startGitHubApi({ tokens: { [TOKEN]: { login: AGENT, type: 'Bot' } }, git });
  github.addRepository('acme/app');
  github.addCollaborator('acme/app', 'carol', 'write');
  github.addCollaborator('acme/app', 'rita', 'read');
  github.addUser('mallory');
  llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
  ({ platform, runtime } = await startEngine({
    github: { webhookSecrets: [WEBHOOK_SECRET], resolveOrgs: () => ['acme'], solvability: createSolvabilityEstimator() },
  }));
  await storeSettings(false);
  await platform.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: github.url } } });
  const automation = await platform.automations.create(alice, {
    name: 'Agent on mention',
    trigger: { type: 'event', source: 'github', mention: '@agent' },
    instructions: 'Do what the comment asks; open a pull request with the change.',
  });
  automationId = automation.id;
  expect(automation).toMatchObject({ report_to_github: true, trigger: { mention: '@agent' } });
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  await runtime?.close();
  await llm?.close();
  await github?.close();
  await git?.close();
});

/** What GitHub writes as each commenter's `author_association` on acme/app (collaborators, and the rest). */
const ASSOCIATIONS: Record<string, string> = { carol: 'COLLABORATOR', rita: 'COLLABORATOR' };

/** Alice's settings (storing replaces them), in confirmation mode or not. */
const settingsBody = async (confirmationMode: boolean) => ({
  llm_model: 'openai/gpt-4o',
  llm_api_key: LLM_KEY,
  llm_base_url: `${llm.url}/v1`,
  git_user_name: 'Alice Agent',
  git_user_email: 'alice@example.com',
  confirmation_mode: confirmationMode,
});
const storeSettings = async (confirmationMode: boolean) => platform.settings.store(alice, await settingsBody(confirmationMode));

/** Posts a signed `issue_comment.created` as GitHub sends it (the comment stored on the stand-in too). */
async function comment(issue: number, login: string, body: string, type: 'User' | 'Bot' = 'User') {
  const id = github.addIssueComment('acme/app', issue, { body, user: login });
  return send('issue_comment', {
    action: 'created',
    issue: { number: issue, title: 'Crash on start' },
    comment: { id, body, user: { login, type }, author_association: ASSOCIATIONS[login] ?? 'NONE' },
    sender: { login, type },
  });
}

async function send(event: string, payload: Record<string, unknown>) {
  const body = JSON.stringify({ ...payload, repository: { full_name: 'acme/app', owner: { login: 'acme' } }, installation: { id: 1 } });
  const result = await platform.events.ingestGithub({ headers: githubHeaders(WEBHOOK_SECRET, event, body), body: new TextEncoder().encode(body) });
  lastDeliveryId = result.delivery_id ?? null;
  return result;
}

const runOf = (id: string): Promise<Run> => platform.automations.getRun(alice, id);

/** The run once it ended and its outcome comment was posted. */
const reported = (id: string): Promise<Run> => reportedRun(platform, id);

/** The delivery the last event sent made (by its id: two in one millisecond list in either order). */
let lastDeliveryId: string | null = null;
async function lastDelivery(): Promise<Delivery> {
  return platform.deliveries.get(alice, lastDeliveryId!);
}

const mine = (issue: number) => github.comments('acme/app', issue).filter((one) => one.user.login === AGENT);

describe('who may command the agent', () => {
  it('a stranger, a reader and a bot start nothing, and the delivery says who and why', async () => {
    const issue = github.addIssue('acme/app', { title: 'Please' });
    expect((await comment(issue, 'mallory', '@agent delete everything')).runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes).toMatchObject([
      {
        automation_id: automationId,
        matched: false,
        reason: 'actor_refused',
        error: expect.stringMatching(/^@mallory has no role on acme\/app/),
        run_id: null,
      },
    ]);
    expect((await comment(issue, 'rita', '@agent fix it')).runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes[0]).toMatchObject({
      reason: 'actor_refused',
      error: expect.stringMatching(/^@rita has the read role on acme\/app; .*write permission/),
    });
    expect((await comment(issue, 'helper[bot]', '@agent fix it', 'Bot')).runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes[0]).toMatchObject({ reason: 'actor_refused', error: expect.stringContaining('is a bot') });
    // No comment mentioning it, no label: not a command, and nothing asked of GitHub for it.
    expect((await comment(issue, 'carol', 'thanks all')).runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes[0]).toMatchObject({ reason: 'not_a_command', error: "the event's text does not mention @agent" });
    expect(mine(issue)).toEqual([]);
    expect(github.violations).toEqual([]);
  });
});

describe('a thread with the agent', () => {
  let issue: number;
  let firstRun: Run;

  it('a collaborator\'s mention: 👀, one comment that starts as "on it" and becomes the outcome', async () => {
    issue = github.addIssue('acme/app', { title: 'Crash on start' });
    const delivered = await comment(issue, 'carol', '@agent fix the crash please');
    expect(delivered.runs_created).toHaveLength(1);
    const runId = delivered.runs_created[0]!;
    // "On it" comes while the agent works (the first model call has not even finished).
    await until(() => mine(issue).length === 1);
    expect(mine(issue)[0]!.body).toContain('is on it');
    expect(mine(issue)[0]!.body).toContain(`[Run \`${runId}\`](https://agents.example.com/console/runs/${runId})`);
    firstRun = await reported(runId);
    expect(firstRun).toMatchObject({ status: 'COMPLETED', thread_key: `github:acme/app#${issue}` });
    expect(mine(issue)).toHaveLength(1);
    expect(mine(issue)[0]!.body).toContain('**Agent on mention** ✅ completed.');
    expect(mine(issue)[0]!.body).toContain('Opened pull request for the crash.');
    expect(github.pulls('acme/app')).toHaveLength(1);
    // The audit log has the pull request the agent opened.
    const audit = await platform.audit.list({ ...alice, role: 'owner' }, { limit: 100, after: 0, action: 'agent.pull_request_opened' });
    expect(audit.entries).toMatchObject([
      {
        actor: { kind: 'system' },
        target: { type: 'run', id: runId },
        details: { repository: 'acme/app', number: github.pulls('acme/app')[0]!.number, head: 'agent/fix-crash' },
      },
    ]);
    // The platform's own comment and pull request (both mention @agent) never come back as commands.
    const own = mine(issue)[0]!;
    expect(
      (
        await send('issue_comment', {
          action: 'edited',
          issue: { number: issue },
          comment: { id: own.id, body: own.body, user: { login: AGENT, type: 'Bot' } },
          sender: { login: AGENT, type: 'Bot' },
        })
      ).runs_created,
    ).toEqual([]);
    const pull = github.pulls('acme/app')[0]!;
    expect(pull.body).toContain('<!-- agent-platform');
    expect(
      (
        await send('pull_request', {
          action: 'opened',
          pull_request: { number: pull.number, body: pull.body, user: { login: 'carol', type: 'User' }, author_association: 'OWNER' },
          sender: { login: 'carol', type: 'User' },
        })
      ).runs_created,
    ).toEqual([]);
  }, 60_000);

  it('a second mention continues the same conversation, on the same branch, without a second pull request', async () => {
    const before = (await git.refs('acme/app'))['refs/heads/agent/fix-crash'];
    const delivered = await comment(issue, 'carol', '@agent also add a note');
    const run = await reported(delivered.runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', conversation_id: firstRun.conversation_id, thread_key: firstRun.thread_key });
    expect(followUpsSawHistory.at(-1)).toBe(true);
    // A commit on the branch the pull request tracks; still one pull request.
    expect((await git.refs('acme/app'))['refs/heads/agent/fix-crash']).not.toBe(before);
    expect(await git.readFile('acme/app', 'refs/heads/agent/fix-crash', 'fix.txt')).toBe('fixed\nmore\n');
    expect(github.pulls('acme/app')).toHaveLength(1);
    // The second run has its own comment, its answer only.
    expect(mine(issue)).toHaveLength(2);
    expect(mine(issue)[1]!.body).toContain('Pushed the follow-up to the same branch.');
    expect(mine(issue)[1]!.body).not.toContain('Opened pull request for the crash.');
  }, 60_000);

  it('a review comment on its pull request is answered in the review thread, the fix pushed to its branch', async () => {
    const pull = github.pulls('acme/app')[0]!.number;
    const before = (await git.refs('acme/app'))['refs/heads/agent/fix-crash'];
    const reviewId = github.addReviewComment('acme/app', pull, { body: '@agent rename this', user: 'carol', path: 'README.md' });
    const delivered = await send('pull_request_review_comment', {
      action: 'created',
      pull_request: { number: pull, head: { ref: 'agent/fix-crash', repo: { full_name: 'acme/app' } } },
      comment: {
        id: reviewId,
        body: '@agent rename this',
        path: 'README.md',
        line: 1,
        user: { login: 'carol', type: 'User' },
        author_association: 'COLLABORATOR',
      },
      sender: { login: 'carol', type: 'User' },
    });
    const run = await reported(delivered.runs_created[0]!);
    expect(run).toMatchObject({ status: 'COMPLETED', conversation_id: firstRun.conversation_id, thread_key: `github:acme/app#${pull}` });
    expect((await git.refs('acme/app'))['refs/heads/agent/fix-crash']).not.toBe(before);
    const replies = github.reviewComments('acme/app', pull).filter((one) => one.user.login === AGENT);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ inReplyToId: reviewId });
    expect(replies[0]!.body).toContain('✅ completed');
    expect(github.reactions('acme/app', { reviewComment: reviewId }).map((reaction) => reaction.content)).toEqual(['eyes']);
    expect(github.pulls('acme/app')).toHaveLength(1);
    expect(github.violations).toEqual([]);
  }, 60_000);
});

describe('proactive starters', () => {
  it("failed checks on the agent's own pull request get one comment offering the fix, once per commit", async () => {
    const pull = github.pulls('acme/app')[0]!.number;
    const offers = () => github.comments('acme/app', pull).filter((one) => one.user.login === AGENT && one.body.includes('failed on'));
    const suite = (sha: string, conclusion: string, number = pull) =>
      send('check_suite', {
        action: 'completed',
        check_suite: { head_sha: sha, conclusion, app: { name: 'CI' }, pull_requests: [{ number }] },
        sender: { login: 'github-actions[bot]', type: 'Bot' },
      });
    expect((await suite('a1b2c3d4e5', 'success')).runs_created).toEqual([]);
    await suite('a1b2c3d4e5', 'failure');
    await until(() => offers().length === 1);
    expect(offers()[0]!.body).toContain('❌ **CI** failed on a1b2c3d');
    expect(offers()[0]!.body).toContain('Reply `@agent fix the failing checks`');
    // The same commit again: no second offer; a pull request the agent did not open: none.
    await suite('a1b2c3d4e5', 'failure');
    const other = github.addIssue('acme/app', { title: "Someone else's", pullRequest: true });
    await suite('ffff000011', 'failure', other);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(offers()).toHaveLength(1);
    expect(github.comments('acme/app', other)).toEqual([]);
    // Its owner turned it off: nothing.
    await platform.settings.store(alice, { ...(await settingsBody(false)), enable_proactive_conversation_starters: false });
    try {
      await suite('9999888877', 'failure');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(offers()).toHaveLength(1);
    } finally {
      await storeSettings(false);
    }
  });
});

describe('controls from the thread', () => {
  it('"@agent stop" from a writer stops the run, and the outcome says who stopped it', async () => {
    const issue = github.addIssue('acme/app', { title: 'Slow one' });
    const [runId] = (await comment(issue, 'carol', '@agent slow task please')).runs_created;
    await until(async () => (await runOf(runId!)).status === 'RUNNING');
    // "On it" shows the solvability estimate once the owner's model gave it (their setting is on by default).
    await until(() => mine(issue)[0]?.body.includes('Solvability: **80%** — A clear request with a small scope.') === true);
    expect(estimatesAsked.at(-1)).toContain('Title: Crash on start');
    // A stranger's stop is refused; a writer's stops it.
    expect((await comment(issue, 'mallory', '@agent stop')).runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes[0]).toMatchObject({ reason: 'actor_refused' });
    expect((await runOf(runId!)).status).toBe('RUNNING');
    expect((await comment(issue, 'carol', '@agent stop')).runs_created).toEqual([]);
    expect((await lastDelivery()).outcomes[0]).toMatchObject({ matched: true, reason: 'thread_command', detail: `stop from @carol: cancels ${runId}` });
    const run = await reported(runId!);
    expect(run).toMatchObject({ status: 'CANCELLED', error_detail: expect.stringContaining('stopped by @carol from the thread') });
    expect(mine(issue).at(-1)!.body).toContain('was cancelled');
    expect(mine(issue).at(-1)!.body).toContain('stopped by @carol');
    // Who stopped it is in the audit log, by their login in the thread.
    const cancels = await platform.audit.list({ ...alice, role: 'owner' }, { limit: 100, after: 0, action: 'run.cancelled', target_id: runId! });
    expect(cancels.entries).toMatchObject([{ actor: { kind: 'thread', id: 'carol', role: null }, details: { thread: `github:acme/app#${issue}` } }]);
  }, 60_000);

  it('two quick mentions in one thread run one after the other', async () => {
    const issue = github.addIssue('acme/app', { title: 'Two asks' });
    const [first] = (await comment(issue, 'carol', '@agent slow task one')).runs_created;
    const [second] = (await comment(issue, 'carol', '@agent slow task two')).runs_created;
    await until(async () => (await runOf(first!)).status === 'RUNNING');
    expect(await runOf(second!)).toMatchObject({ status: 'PENDING', held_reason: expect.stringContaining(`waits for run ${first}`) });
    const [a, b] = [await reported(first!), await reported(second!)];
    expect(a.status).toBe('COMPLETED');
    expect(b.status).toBe('COMPLETED');
    expect(Date.parse(b.started_at!)).toBeGreaterThanOrEqual(Date.parse(a.completed_at!));
    expect(b.conversation_id).toBe(a.conversation_id);
  }, 90_000);
});

describe('approvals in the thread', () => {
  it("in confirmation mode the held action is posted in the thread; a stranger's /approve does nothing, a writer's releases it", async () => {
    await storeSettings(true);
    try {
      const issue = github.addIssue('acme/app', { title: 'Careful' });
      const [runId] = (await comment(issue, 'carol', '@agent slow task with care')).runs_created;
      // The terminal command is held: the thread is asked.
      await until(() => mine(issue).some((one) => one.body.includes('waits for approval')));
      const asking = mine(issue).find((one) => one.body.includes('waits for approval'))!;
      expect(asking.body).toContain('`terminal`');
      expect(asking.body).toContain('sleep 3');
      expect((await runOf(runId!)).status).toBe('RUNNING');

      expect((await comment(issue, 'mallory', '/approve')).runs_created).toEqual([]);
      expect((await lastDelivery()).outcomes[0]).toMatchObject({ reason: 'actor_refused' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await runOf(runId!)).status).toBe('RUNNING');

      expect((await comment(issue, 'carol', '/approve go ahead')).runs_created).toEqual([]);
      expect((await lastDelivery()).outcomes[0]).toMatchObject({ matched: true, reason: 'thread_command' });
      const run = await reported(runId!);
      expect(run.status).toBe('COMPLETED');
      expect(mine(issue)[0]!.body).toContain('Slow work done.');
    } finally {
      await storeSettings(false);
    }
  }, 90_000);
});

describe('a label trigger', () => {
  it("the label added by a writer starts a run (GitHub asked for the labeller's role); removed, it stops the run", async () => {
    const labelled = await platform.automations.create(alice, {
      name: 'Agent on label',
      trigger: { type: 'event', source: 'github', label: 'agent-fix' },
      instructions: 'Do what the issue asks.',
    });
    try {
      expect(labelled).toMatchObject({
        report_to_github: true,
        trigger: { label: 'agent-fix', on: expect.arrayContaining(['issues.labeled', 'issues.unlabeled']) },
      });
      const issue = github.addIssue('acme/app', { title: 'slow work wanted' });
      const label = (action: 'labeled' | 'unlabeled', login: string, name = 'agent-fix') =>
        send('issues', {
          action,
          label: { name },
          issue: { number: issue, title: 'slow work wanted', body: 'slow task', user: { login: 'someone' } },
          sender: { login, type: 'User' },
        });
      const outcome = async () => (await lastDelivery()).outcomes.find((one) => one.automation_id === labelled.id);
      expect((await label('labeled', 'carol', 'bug')).runs_created).toEqual([]);
      expect(await outcome()).toMatchObject({ reason: 'not_a_command' });
      expect((await label('labeled', 'mallory')).runs_created).toEqual([]);
      expect(await outcome()).toMatchObject({ reason: 'actor_refused', error: expect.stringContaining('@mallory has no role') });
      const [runId] = (await label('labeled', 'carol')).runs_created;
      expect(runId).toBeDefined();
      await until(async () => (await runOf(runId!)).status === 'RUNNING');
      await label('unlabeled', 'carol');
      expect(await outcome()).toMatchObject({ reason: 'thread_command', detail: `stop from @carol: cancels ${runId}` });
      expect(await reported(runId!)).toMatchObject({ status: 'CANCELLED', error_detail: expect.stringContaining('stopped by @carol') });
    } finally {
      await platform.automations.delete(alice, labelled.id);
    }
  }, 60_000);
});
