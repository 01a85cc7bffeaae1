/**
 * Reporting runs back to GitHub, through the engine: a signed GitHub event → a run of an
 * automation with `report_to_github` → a 👀 reaction when it starts and one comment with its
 * outcome when it ends — against a GitHub stand-in that checks every request and answer against
 * GitHub's OpenAPI description, with the real `@octokit/rest`. Refusals are recorded on the run
 * and never change its status; a later report of the same run edits its comment.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  signGithub,
  type AgentPlatform,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import type { StorageAdapter } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { startGitHubApi, type GitHubApi } from '@agent-platform/testing/github-api';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { RunReporter } from './run-reporter.js';

const TOKEN = 'ghp_reporting_test_token_7a1f';
const OTHER_TOKEN = 'ghp_reporting_other_token_c0de';
const WEBHOOK_SECRET = 'github-webhook-secret';
const alice = { userId: 'alice', orgId: 'acme' };
const bob = { userId: 'bob', orgId: 'acme' };

let github: GitHubApi;
let git: GitServer;
let platform: AgentPlatform | null = null;
let runtime: SandboxRuntime | null = null;

beforeAll(async () => {
  // One origin serves the repository (cloned by each run) and the API, as GitHub Enterprise does.
  git = await startGitServer();
  await git.createRepository('acme/app');
  await git.createRepository('acme/locked');
  github = await startGitHubApi({ tokens: { [TOKEN]: 'alice-bot', [OTHER_TOKEN]: 'bob-bot' }, git });
  github.addRepository('acme/app');
  github.addRepository('acme/locked');
  github.refuseWrites(TOKEN, 'acme/locked');
}, 60_000);
afterAll(async () => {
  await github?.close();
  await git?.close();
});
afterEach(async () => {
  await platform?.stop();
  await runtime?.close();
  platform = null;
  runtime = null;
  expect(github.violations).toEqual([]);
  expect(JSON.stringify(github.requests)).not.toContain(TOKEN);
});

const secretKey = generateSecretKey();

async function setup(agent = 'echo "looked at it"; echo "all good"', shared: { storage?: StorageAdapter; clock?: { now(): Date } } = {}) {
  runtime = createProcessRuntime();
  platform = createAgentPlatform({
    // Closing the engine must not close a storage another one shares.
    storage: shared.storage ? ({ ...shared.storage, close: async () => {} } as StorageAdapter) : createMemoryStorage(),
    ...(shared.clock ? { clock: shared.clock } : {}),
    secrets: createAesGcmSecretBox({ keys: { k: secretKey } }),
    publicUrl: 'http://platform.example',
    runtime,
    agent: createCommandAgentRunner({ command: agent }),
    executor: { pollIntervalMs: 50, retryBackoffMs: 10 },
    github: { webhookSecrets: [WEBHOOK_SECRET], resolveOrgs: () => ['acme'] },
  });
  await platform.start();
  await platform.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: github.url } } });
  return platform;
}

/** Sends a signed event from the repository's owner (a comment's author, trusted without asking GitHub). */
async function send(p: AgentPlatform, event: string, payload: Record<string, unknown>, repository = 'acme/app') {
  const comment = payload.comment as Record<string, unknown> | undefined;
  const sender = { login: 'carol', type: 'User' };
  const signed = { ...payload, ...(comment ? { comment: { user: sender, author_association: 'OWNER', ...comment } } : {}), sender };
  const body = JSON.stringify({ ...signed, repository: { full_name: repository }, installation: { id: 1 } });
  return p.events.ingestGithub({
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': signGithub(WEBHOOK_SECRET, body),
    },
    body: new TextEncoder().encode(body),
  });
}

async function finishedRun(p: AgentPlatform, automationId: string, principal = alice) {
  await p.executor!.idle();
  return (await p.automations.listRuns(principal, automationId, { limit: 10, offset: 0 })).runs[0]!;
}

/** A reporter of its own over an engine's context and settings (the engine's own is not reachable from outside). */
const reporterOf = (engine: AgentPlatform) =>
  new RunReporter((engine as unknown as { executor: { context: never } }).executor.context, {
    settingsOf: (userId) => engine.settings.agentSettings(userId),
    runUrl: () => null,
  });

/** Waits (up to 15 s) until no run owes its outcome comment. */
async function untilNoneOwed(storage: StorageAdapter): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await storage.runReports.listDue(10)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Polls `check` every 50 ms until it holds, for at most `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

const reporting = (principal = alice) =>
  platform!.automations.create(principal, {
    name: 'Answer comments',
    trigger: { type: 'event', source: 'github', on: 'issue_comment.created' },
    instructions: 'Answer',
    report_to_github: true,
  });

describe('report_to_github', () => {
  it('reacts to the comment that asked, then comments the outcome with a link to the run', async () => {
    const p = await setup();
    const issue = github.addIssue('acme/app', { title: 'Crash on start' });
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent look', user: 'carol' });
    const automation = await reporting();
    expect((await send(p, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } })).matched).toBe(1);
    const run = await finishedRun(p, automation.id);

    expect(run.status).toBe('COMPLETED');
    expect(github.reactions('acme/app', { comment: asked }).map((reaction) => [reaction.content, reaction.user.login])).toEqual([['eyes', 'alice-bot']]);
    const comments = github.comments('acme/app', issue).filter((comment) => comment.user.login === 'alice-bot');
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('**Answer comments** ✅ completed.');
    expect(comments[0]!.body).toContain('looked at it\nall good');
    expect(comments[0]!.body).toContain(`[Run \`${run.id}\`](http://platform.example/console/runs/${run.id})`);
    expect(run.report).toMatchObject({ target: `acme/app#${issue}`, reaction: 'added', comment_id: comments[0]!.id, error: null, comment_due: false });
    expect(run.report!.comment_url).toMatch(new RegExp(`/acme/app/issues/${issue}#issuecomment-${comments[0]!.id}$`));
  });

  it('a failed run: the comment says why; an issue event gets its reaction on the issue', async () => {
    const p = await setup('echo "trying"; echo "it broke" >&2; exit 3');
    const issue = github.addIssue('acme/app', { title: 'Flaky' });
    const automation = await p.automations.create(alice, {
      name: 'Triage',
      trigger: { type: 'event', source: 'github', on: 'issues.opened' },
      instructions: 'Triage',
      report_to_github: true,
    });
    await send(p, 'issues', { action: 'opened', issue: { number: issue } });
    const run = await finishedRun(p, automation.id);
    expect(run.status).toBe('FAILED');
    expect(github.reactions('acme/app', { issue }).map((reaction) => reaction.content)).toEqual(['eyes']);
    const [comment] = github.comments('acme/app', issue);
    expect(comment!.body).toContain('**Triage** ❌ failed.');
    expect(comment!.body).toContain(run.error_detail!);
  });

  it('a run cancelled over the API while its agent works is answered at once, by whoever cancelled it', async () => {
    const p = await setup('echo "working on it"; sleep 60');
    const issue = github.addIssue('acme/app', { title: 'Slow one' });
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent look' });
    await reporting();
    const [runId] = (await send(p, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } })).runs_created;
    const run = () => p.automations.getRun(alice, runId!);
    // The agent is at work: the run is RUNNING with its conversation, and the 👀 reaction is there.
    await until(async () => (await run()).conversation_id !== null && github.reactions('acme/app', { comment: asked }).length > 0, 15_000);
    expect((await run()).status).toBe('RUNNING');

    const cancelledAt = Date.now();
    expect((await p.automations.cancelRun(alice, runId!)).status).toBe('CANCELLED');
    const mine = () => github.comments('acme/app', issue).filter((comment) => comment.user.login === 'alice-bot');
    // Within seconds (a sweep would take minutes): bounded far above the few GitHub calls it takes.
    // The run's one comment said "on it" since it started; the outcome replaces it.
    await until(() => mine()[0]?.body.includes('was cancelled') === true, 10_000);
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('**Answer comments** ⏹️ was cancelled');
    await p.executor!.idle();
    expect(await run()).toMatchObject({ status: 'CANCELLED', report: { comment_id: mine()[0]!.id, comment_due: false } });
    expect(mine()).toHaveLength(1);
  });

  it('a refused token is recorded on the run, which still COMPLETES', async () => {
    const p = await setup();
    const issue = github.addIssue('acme/locked');
    const asked = github.addIssueComment('acme/locked', issue, { body: '@agent look' });
    const automation = await reporting();
    await send(p, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } }, 'acme/locked');
    const run = await finishedRun(p, automation.id);
    expect(run.status).toBe('COMPLETED');
    expect(run.report).toMatchObject({ target: `acme/locked#${issue}`, reaction: 'failed', comment_id: null });
    expect(run.report!.error).toMatch(/^the outcome comment could not be posted: GitHub answered 403: /);
    expect(run.report!.error).not.toContain(TOKEN);
    expect(github.comments('acme/locked', issue).filter((comment) => comment.user.login === 'alice-bot')).toEqual([]);
  });

  it('no token stored: said on the run, nothing sent', async () => {
    const p = await setup();
    const issue = github.addIssue('acme/app');
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent look' });
    const automation = await reporting(bob);
    const before = github.requests.length;
    await send(p, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } });
    // Its clone fails too (no token, no host): the report still says why it said nothing.
    const run = await finishedRun(p, automation.id, bob);
    expect(run.report).toMatchObject({ target: null, reaction: null, comment_id: null });
    expect(run.report!.error).toBe("no GitHub token is stored for the automation's owner (bob); store one in their settings");
    expect(github.requests.length).toBe(before);
  });

  it('a later report of the same run edits its comment, found by its marker when its id was lost', async () => {
    const p = await setup();
    const issue = github.addIssue('acme/app');
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent look' });
    const automation = await reporting();
    await send(p, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } });
    const run = await finishedRun(p, automation.id);
    const mine = () => github.comments('acme/app', issue).filter((comment) => comment.user.login === 'alice-bot');
    expect(mine()).toHaveLength(1);

    // As a worker that posted the comment but died before storing its id would leave it.
    await p.storage.runReports.put(alice.orgId, run.id, { ...run.report!, comment_id: null, comment_url: null });
    const record = (await p.storage.runs.get(alice.orgId, run.id))!;
    const reporter = reporterOf(p);
    await p.automations.update(alice, automation.id, { name: 'Answer comments, renamed' });
    reporter.finished(record);
    await p.executor!.idle();
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('**Answer comments, renamed** ✅ completed.');
    expect(await p.storage.runReports.get(alice.orgId, run.id)).toMatchObject({ comment_id: mine()[0]!.id, error: null });
  });

  it('a comment owed by a worker that died after the run ended is posted by a later executor’s sweep, once', async () => {
    const storage = createMemoryStorage();
    // An engine that only takes events (no agent, so no executor): the run waits PENDING.
    const receiver = createAgentPlatform({
      storage: { ...storage, close: async () => {} } as StorageAdapter,
      secrets: createAesGcmSecretBox({ keys: { k: secretKey } }),
      publicUrl: 'http://platform.example',
      github: { webhookSecrets: [WEBHOOK_SECRET], resolveOrgs: () => ['acme'] },
    });
    await receiver.start();
    await receiver.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: github.url } } });
    const issue = github.addIssue('acme/app');
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent look' });
    await receiver.automations.create(alice, {
      name: 'Answer comments',
      trigger: { type: 'event', source: 'github', on: 'issue_comment.created' },
      instructions: 'Answer',
      report_to_github: true,
    });
    const [runId] = (await send(receiver, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } })).runs_created;
    await receiver.stop();

    // What a worker killed between the run's final status and its comment leaves: the run
    // COMPLETED, its reaction added, its comment owed.
    const [claimed] = await storage.runQueue.claim({ owner: 'wkr_dead', max: 1, leaseMs: 60_000, now: new Date(), limits: { perOrg: 9, global: 9 } });
    expect(claimed?.id).toBe(runId);
    const ref = { orgId: alice.orgId, id: runId! };
    const owed = { target: `acme/app#${issue}`, reaction: 'added' as const, comment_id: null, comment_url: null, error: null, comment_due: true };
    await storage.runReports.put(ref.orgId, ref.id, { ...owed, updated_at: new Date().toISOString() });
    await storage.runQueue.complete('wkr_dead', ref, { status: 'COMPLETED', error_detail: null, completed_at: new Date().toISOString() });
    expect((await storage.runReports.listDue(10)).map(({ run }) => run.id)).toEqual([runId]);
    const mine = () => github.comments('acme/app', issue).filter((comment) => comment.user.login === 'alice-bot');

    // An executor starting at once leaves it alone (the dying worker's comment may be under way)...
    const p = await setup(undefined, { storage });
    expect(await reporterOf(p).sweep()).toBe(0);
    await p.stop();

    // ... and one starting three minutes later posts it, once.
    const later = await setup(undefined, { storage, clock: { now: () => new Date(Date.now() + 3 * 60_000) } });
    await untilNoneOwed(storage);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('**Answer comments** ✅ completed.');
    expect(await storage.runReports.get(ref.orgId, ref.id)).toMatchObject({ comment_id: mine()[0]!.id, comment_due: false, error: null, reaction: 'added' });
    expect(await reporterOf(later).sweep()).toBe(0);
    expect(mine()).toHaveLength(1);
  });

  it('GitHub unreachable when the run ends: said on the run, still owed, posted by a later sweep once GitHub answers', async () => {
    const storage = createMemoryStorage();
    const p = await setup(undefined, { storage });
    // Nothing listens there: every call fails without an answer, as when GitHub is down.
    const closed = await new Promise<string>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(`http://127.0.0.1:${port}`));
      });
    });
    await p.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: closed } } });
    const issue = github.addIssue('acme/app');
    const asked = github.addIssueComment('acme/app', issue, { body: '@agent look' });
    const automation = await reporting();
    await send(p, 'issue_comment', { action: 'created', issue: { number: issue }, comment: { id: asked } });
    const run = await finishedRun(p, automation.id);
    expect(run.report).toMatchObject({ reaction: 'failed', comment_id: null, comment_due: true });
    expect(run.report!.error).toMatch(/^the outcome comment could not be posted: .*\(trying again in a few minutes\)$/);
    // GitHub is back; a worker three minutes later posts the comment.
    await p.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: github.url } } });
    await p.stop();
    await setup(undefined, { storage, clock: { now: () => new Date(Date.now() + 3 * 60_000) } });
    await untilNoneOwed(storage);
    const comments = github.comments('acme/app', issue).filter((comment) => comment.user.login === 'alice-bot');
    expect(comments).toHaveLength(1);
    expect(await storage.runReports.get(alice.orgId, run.id)).toMatchObject({ comment_id: comments[0]!.id, comment_due: false, error: null });
  });

  it('an event without a thread says so; other automations report nothing', async () => {
    const p = await setup();
    const pushes = await p.automations.create(alice, {
      name: 'On push',
      trigger: { type: 'event', source: 'github', on: 'push' },
      instructions: 'Build',
      report_to_github: true,
    });
    const quiet = await p.automations.create(alice, { name: 'Quiet', trigger: { type: 'event', source: 'github', on: 'push' }, instructions: 'Build' });
    const before = github.requests.length;
    await send(p, 'push', { ref: 'refs/heads/main' });
    expect((await finishedRun(p, pushes.id)).report).toMatchObject({ error: 'a push event has no issue or pull request to answer in' });
    expect((await finishedRun(p, quiet.id)).report).toBeNull();
    expect(github.requests.length).toBe(before);
  });

  it('is refused (422) on an automation that GitHub does not trigger', async () => {
    await setup();
    await expect(
      platform!.automations.create(alice, { name: 'x', trigger: { type: 'event', source: 'linear', on: 'Issue' }, instructions: 'x', report_to_github: true }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: 'report_to_github needs a GitHub trigger (source "github"), not "linear"' });
    const created = await platform!.automations.create(alice, {
      name: 'x',
      trigger: { type: 'event', source: 'github', on: 'push' },
      instructions: 'x',
      report_to_github: true,
    });
    await expect(platform!.automations.update(alice, created.id, { trigger: { source: 'linear' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
