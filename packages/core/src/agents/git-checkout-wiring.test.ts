/**
 * Runs and conversations clone their repository before the agent starts: real git
 * against a real git HTTP server, on the process runtime.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type ExecInput,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';

const TOKEN = 'ghp_wiring_test_token_91c2';
const WEBHOOK_SECRET = 'github-webhook-secret';
const alice = { userId: 'alice', orgId: 'acme' };
const AGENT = 'ls; git log -1 --format="head: %s"; git rev-parse --abbrev-ref HEAD; if [ -f fix.txt ]; then cat fix.txt; fi';

let git: GitServer;
let platform: AgentPlatform | null = null;
let runtime: SandboxRuntime | null = null;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  await git.createRepository('acme/app', {
    files: { 'README.md': '# app\n' },
    branches: { 'feature/x': { 'x.txt': 'x\n' } },
    pullRequests: { 5: { files: { 'fix.txt': 'the fix\n' }, branch: 'fix/bug' } },
  });
});
afterAll(async () => {
  await git?.close();
});
afterEach(async () => {
  await platform?.stop();
  await runtime?.close();
  platform = null;
  runtime = null;
});

/** The process runtime, noting the start task's status when the first command runs (the clone). */
function recordingRuntime(seen: string[]): SandboxRuntime {
  const inner = createProcessRuntime();
  return {
    ...inner,
    name: inner.name,
    listSpecs: () => inner.listSpecs(),
    start: (input) => inner.start(input),
    inspect: (id) => inner.inspect(id),
    pause: (id) => inner.pause(id),
    resume: (id) => inner.resume(id),
    delete: (id) => inner.delete(id),
    close: () => inner.close(),
    async *exec(id: string, input: ExecInput) {
      if (seen.length === 0 && platform)
        seen.push(...(await platform.storage.startTasks.listByUser(alice.userId, { limit: 10 })).items.map((task) => task.status));
      yield* inner.exec(id, input);
    },
  };
}

async function setup(options: { host?: string; seen?: string[] } = {}) {
  runtime = options.seen ? recordingRuntime(options.seen) : createProcessRuntime();
  platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command: AGENT }),
    executor: { pollIntervalMs: 50, retryBackoffMs: 10 },
    github: { webhookSecrets: [WEBHOOK_SECRET], resolveOrgs: () => ['acme'] },
  });
  await platform.start();
  await platform.settings.store(alice, { git_user_name: 'Alice Agent', git_user_email: 'alice@example.com' });
  await platform.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: options.host ?? git.url } } });
  return platform;
}

async function finishedRun(p: AgentPlatform, automationId: string) {
  await p.executor!.idle();
  return (await p.automations.listRuns(alice, automationId, { limit: 10, offset: 0 })).runs[0]!;
}

async function eventsOf(p: AgentPlatform, conversationId: string) {
  return (await p.storage.conversations.listEvents(conversationId, { limit: 200 })).items;
}

const outputs = (events: Awaited<ReturnType<typeof eventsOf>>) => events.filter((event) => event.kind === 'agent_output').map((event) => event.message);

describe('automation runs', () => {
  it("clone the automation's repository before the agent starts", async () => {
    const p = await setup();
    const automation = await p.automations.create(alice, {
      name: 'work on app',
      trigger: { type: 'event', source: 'ci', on: 'build' },
      instructions: 'Look around',
      selected_repository: 'acme/app',
    });
    await p.automations.dispatch(alice, automation.id, {});
    const run = await finishedRun(p, automation.id);
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    const events = await eventsOf(p, run.conversation_id!);
    expect(outputs(events)).toEqual(['README.md', 'head: initial commit', 'main']);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(await p.storage.conversations.get(run.conversation_id!)).toMatchObject({ selected_repository: 'acme/app', selected_branch: null });
  });

  it("clone a GitHub event's repository at the pull request's head", async () => {
    const p = await setup();
    const automation = await p.automations.create(alice, {
      name: 'review',
      trigger: { type: 'event', source: 'github', on: 'pull_request.opened' },
      instructions: 'Review the pull request',
    });
    const body = JSON.stringify({
      action: 'opened',
      number: 5,
      pull_request: { number: 5, head: { ref: 'fix/bug', repo: { full_name: 'acme/app' } } },
      repository: { full_name: 'acme/app' },
      installation: { id: 1 },
    });
    const result = await p.events.ingestGithub({
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
      },
      body: new TextEncoder().encode(body),
    });
    expect(result.matched).toBe(1);
    const run = await finishedRun(p, automation.id);
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    expect(outputs(await eventsOf(p, run.conversation_id!))).toEqual(['README.md', 'fix.txt', 'head: pull request #5', 'fix/bug', 'the fix']);
    expect(await p.storage.conversations.get(run.conversation_id!)).toMatchObject({ selected_repository: 'acme/app', selected_branch: 'fix/bug' });
  });

  it('fail, not retried, with a clear reason free of the token when the clone fails', async () => {
    const p = await setup();
    const automation = await p.automations.create(alice, {
      name: 'missing',
      trigger: { type: 'event', source: 'ci', on: 'build' },
      instructions: 'Look around',
      selected_repository: 'acme/missing',
    });
    await p.automations.dispatch(alice, automation.id, {});
    const run = await finishedRun(p, automation.id);
    expect(run).toMatchObject({ status: 'FAILED', attempt: 1 });
    expect(run.error_detail).toMatch(/^cloning acme\/missing failed: repository not found or the token has no access/);
    const events = await eventsOf(p, run.conversation_id!);
    expect(outputs(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ kind: 'status', data: { status: 'FAILED', reason: run.error_detail } });
    expect(JSON.stringify({ run, events })).not.toContain(TOKEN);
  });
});

describe('conversations', () => {
  it('go through PREPARING_REPOSITORY to READY, with the branch checked out for the agent', async () => {
    const seen: string[] = [];
    const p = await setup({ seen });
    const task = await p.conversations.start(alice, { initial_message: 'Look around', selected_repository: 'acme/app', selected_branch: 'feature/x' });
    await p.conversations.settled();
    expect(seen).toEqual(['PREPARING_REPOSITORY']);
    const [done] = await p.conversations.tasks(alice, [task.id]);
    expect(done).toMatchObject({ status: 'READY', detail: null });
    const events = await eventsOf(p, done!.app_conversation_id!);
    expect(outputs(events)).toEqual(['README.md', 'x.txt', 'head: work on feature/x', 'feature/x']);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
  });

  it("end the start task ERROR with the reason when the branch is missing or the provider's token is wrong", async () => {
    const p = await setup();
    const missing = await p.conversations.start(alice, { initial_message: 'Look around', selected_repository: 'acme/app', selected_branch: 'nope' });
    await p.gitProviders.store(alice, { provider_tokens: { gitlab: { token: 'glpat-not-for-here', host: git.url } } });
    const refused = await p.conversations.start(alice, { initial_message: 'Look around', selected_repository: 'acme/app', git_provider: 'gitlab' });
    const unknown = await p.conversations.start(alice, { selected_repository: 'acme/app', git_provider: 'svn' });
    await p.conversations.settled();
    const [a, b, c] = await p.conversations.tasks(alice, [missing.id, refused.id, unknown.id]);
    expect(a).toMatchObject({ status: 'ERROR', app_conversation_id: null, detail: 'cloning acme/app failed: branch nope not found' });
    expect(b).toMatchObject({ status: 'ERROR', detail: expect.stringMatching(/^cloning acme\/app failed: the token was refused/) });
    expect(c).toMatchObject({ status: 'ERROR', detail: 'unknown git provider "svn"' });
    expect(JSON.stringify([a, b, c])).not.toContain('glpat-not-for-here');
  });
});
