/**
 * The repository, end to end through the reference server run as a user would: the
 * owner stores a GitHub token for a host (here a real git HTTP server on loopback), a
 * conversation with `selected_repository` goes through PREPARING_REPOSITORY to READY with the
 * repository cloned for the agent, which commits and pushes a branch with the same token; an
 * automation run does the same; failures end the start task ERROR and the run FAILED with a clear
 * reason; the token is in no response, stored event or log line.
 *
 * The process runtime only: the Docker test image has no git (a real agent image must have it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-repository-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const TOKEN = 'ghp_e2e_repository_token_5d1e';

// Shows what it was given to work on; with a task starting "push", commits and pushes a branch.
const AGENT = [
  'ls',
  'git log -1 --format="head: %s"',
  'echo "branch: $(git rev-parse --abbrev-ref HEAD)"',
  'echo "identity: $(git config user.name) <$(git config user.email)>"',
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in push*) git checkout -q -b agent/work && echo done > work.txt && git add work.txt && git commit -q -m "agent work" && git push -q origin agent/work && echo pushed;; esac',
].join('\n');

describe('the repository through the reference server', () => {
  let git: GitServer;
  let server: RunningServer;
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(server.baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, json: JSON.parse(text || 'null') as any };
  };
  /** Polls the start task until it ends, noting every status it showed. */
  const finishTask = async (taskId: string) => {
    const statuses: string[] = [];
    for (let i = 0; i < 1500; i++) {
      const [task] = (await call('GET', `/api/v1/app-conversations/start-tasks?ids=${taskId}`)).json;
      if (statuses.at(-1) !== task.status) statuses.push(task.status);
      if (task.status === 'READY' || task.status === 'ERROR') return { task, statuses };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`the start task did not end: ${statuses.join(' → ')}`);
  };
  const agentDone = async (conversationId: string) => {
    for (let i = 0; i < 600; i++) {
      const events = await call('GET', `/api/v1/app-conversations/${conversationId}/events?limit=100`);
      if (events.json.items.some((event: any) => event.kind === 'status')) return events;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the agent did not finish');
  };
  const runOf = async (automationId: string) => {
    for (let i = 0; i < 600; i++) {
      const run = (await call('GET', `/api/automation/v1/${automationId}/runs`)).json.runs[0];
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the run did not end');
  };
  const outputs = (events: { json: { items: any[] } }) => events.json.items.filter((event) => event.kind === 'agent_output').map((event) => event.message);

  beforeAll(async () => {
    // Slow enough answers that the clone is seen under way.
    git = await startGitServer({ token: TOKEN, latencyMs: 150 });
    await git.createRepository('acme/app', {
      files: { 'README.md': '# app\n', 'package.json': '{}\n' },
      branches: { 'feature/x': { 'x.txt': 'x\n' } },
    });
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_AGENT_COMMAND: AGENT,
      AGENT_PLATFORM_BUILTIN_AGENT: 'off',
    });
    expect((await call('POST', '/api/settings', { git_user_name: 'Alice Agent', git_user_email: 'alice@example.com' })).status).toBe(200);
    expect((await call('POST', '/api/add-git-providers', { provider_tokens: { github: { token: TOKEN, host: git.host } } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await git?.close();
    expect(server?.output.join('') ?? '').not.toContain(TOKEN);
  }, 60_000);

  it('a conversation goes through PREPARING_REPOSITORY to READY; its agent works in the clone and pushes a branch', async () => {
    const started = await call('POST', '/api/v1/app-conversations', {
      initial_message: 'push your work',
      selected_repository: `${git.url}/acme/app.git`,
      selected_branch: 'feature/x',
    });
    expect(started.status).toBe(200);
    const { task, statuses } = await finishTask(started.json.id);
    expect(task).toMatchObject({ status: 'READY', detail: null });
    // STARTING_CONVERSATION is too short to be seen reliably; the clone (slowed down) is not.
    expect(statuses.filter((status) => status !== 'STARTING_CONVERSATION').slice(-2)).toEqual(['PREPARING_REPOSITORY', 'READY']);

    const events = await agentDone(task.app_conversation_id);
    expect(outputs(events)).toEqual([
      'README.md',
      'package.json',
      'x.txt',
      'head: work on feature/x',
      'branch: feature/x',
      'identity: Alice Agent <alice@example.com>',
      'pushed',
    ]);
    expect(events.json.items.at(-1)).toMatchObject({ kind: 'status', data: { status: 'COMPLETED' } });
    expect(events.text).not.toContain(TOKEN);
    expect(await git.readFile('acme/app', 'refs/heads/agent/work', 'work.txt')).toBe('done\n');
    const conversation = (await call('GET', `/api/v1/app-conversations/${task.app_conversation_id}`)).json;
    expect(conversation).toMatchObject({ selected_repository: `${git.url}/acme/app.git`, selected_branch: 'feature/x' });
  });

  it('a missing branch ends the start task ERROR with the reason', async () => {
    const started = await call('POST', '/api/v1/app-conversations', {
      initial_message: 'look',
      selected_repository: `${git.url}/acme/app.git`,
      selected_branch: 'nope',
    });
    const { task } = await finishTask(started.json.id);
    expect(task).toMatchObject({ status: 'ERROR', app_conversation_id: null, detail: `cloning ${git.url}/acme/app.git failed: branch nope not found` });
  });

  it('an automation run works in its repository; a repository it cannot clone fails the run with the reason', async () => {
    const create = async (name: string, repository: string) =>
      (
        await call('POST', '/api/automation/v1', {
          name,
          trigger: { type: 'event', source: 'ci', on: 'build' },
          instructions: 'look',
          selected_repository: repository,
        })
      ).json;
    const good = await create('good', `${git.url}/acme/app.git`);
    const missing = await create('missing', `${git.url}/acme/missing.git`);
    for (const automation of [good, missing]) expect((await call('POST', `/api/automation/v1/${automation.id}/dispatch`, {})).status).toBe(201);

    const done = await runOf(good.id);
    expect(done).toMatchObject({ status: 'COMPLETED', error_detail: null });
    expect(outputs(await agentDone(done.conversation_id))).toEqual([
      'README.md',
      'package.json',
      'head: initial commit',
      'branch: main',
      'identity: Alice Agent <alice@example.com>',
    ]);

    const failed = await runOf(missing.id);
    expect(failed).toMatchObject({ status: 'FAILED', attempt: 1 });
    expect(failed.error_detail).toMatch(/^cloning http:\/\/127\.0\.0\.1:\d+\/acme\/missing\.git failed: repository not found or the token has no access/);
    const events = await agentDone(failed.conversation_id);
    expect(outputs(events)).toEqual([]);
    expect(JSON.stringify(failed) + events.text).not.toContain(TOKEN);
  });
});
