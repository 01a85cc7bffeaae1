/**
 * The owner's `security_analyzer` end to end: a mention automation on GitHub, through the engine
 * with the built-in agent (driven by a scripted model), a real git server and the GitHub
 * stand-in, in confirmation mode. With `policy`, a harmless command runs without asking while a
 * force push to main is held — the thread is told its risk and why — and a `/reject` keeps main
 * as it was. With `llm`, the model's own rating decides: what it rates LOW runs, what it rates
 * HIGH waits for `/approve`. Each action event carries its rating.
 */
import type { AgentPlatform, ConversationEvent, Run, SandboxRuntime } from '@agent-platform/core';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { startGitHubApi, type GitHubApi } from '@agent-platform/testing/github-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alice, startEngine } from './support/engine-platform.js';
import { until as pollUntil } from './support/polling.js';
import { call, firstAsk, stepOf } from './support/scripted-steps.js';
import { githubHeaders } from './support/signed-events.js';

const TOKEN = 'ghp_e2e_security_token_7a1c00';
const LLM_KEY = 'sk-e2e-security-llm-4242';
const WEBHOOK_SECRET = 'e2e-security-webhook-secret';
const AGENT = 'acme-agent[bot]';
const terminal = (command: string, risk?: string): FakeLlmTurn => call('terminal', { command, ...(risk ? { security_risk: risk } : {}) });
const finish = (message: string): FakeLlmTurn => call('finish', { message });

/** The scripts, by the task the comment names (`task:policy`), step by step. */
const SCRIPTS: Record<string, FakeLlmTurn[]> = {
  policy: [
    terminal('git status --short && git log --oneline -1'),
    terminal('git commit -q --allow-empty -m "Rewrite history" && git push --force origin main'),
    finish('Left main alone.'),
  ],
  llm: [
    terminal('echo low-risk check', 'LOW'),
    terminal('git checkout -q -b agent/approved && git commit -q --allow-empty -m "Approved" && git push -q origin agent/approved', 'HIGH'),
    finish('Pushed agent/approved.'),
  ],
};

/** Tools the model was offered, per task: whether `terminal` asked for `security_risk`. */
const riskAsked: Record<string, boolean> = {};

function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const { all, step } = firstAsk(request);
  const task = /task:([a-z]+)/.exec(all)?.[1] ?? 'none';
  const terminalTool = (request.body.tools as { function: { name: string; parameters: { required?: string[] } } }[]).find(
    (tool) => tool.function.name === 'terminal',
  );
  riskAsked[task] = terminalTool?.function.parameters.required?.includes('security_risk') ?? false;
  return stepOf(SCRIPTS[task] ?? [], step);
}

let git: GitServer;
let github: GitHubApi;
let llm: FakeLlmServer;
let runtime: SandboxRuntime;
let platform: AgentPlatform;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  await git.createRepository('acme/app', { files: { 'README.md': '# app\n' } });
  github = await startGitHubApi({ tokens: { [TOKEN]: { login: AGENT, type: 'Bot' } }, git });
  github.addRepository('acme/app');
  github.addCollaborator('acme/app', 'carol', 'write');
  llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
  ({ platform, runtime } = await startEngine({ github: { webhookSecrets: [WEBHOOK_SECRET], resolveOrgs: () => ['acme'] } }));
  await platform.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: github.url } } });
  await platform.automations.create(alice, {
    name: 'Agent on mention',
    trigger: { type: 'event', source: 'github', mention: '@agent' },
    instructions: 'Do what the comment asks.',
  });
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  await runtime?.close();
  await llm?.close();
  await github?.close();
  await git?.close();
});

/** Alice's settings in confirmation mode with `analyzer`. */
const storeSettings = (analyzer: string) =>
  platform.settings.store(alice, {
    llm_model: 'openai/gpt-4o',
    llm_api_key: LLM_KEY,
    llm_base_url: `${llm.url}/v1`,
    git_user_name: 'Alice Agent',
    git_user_email: 'alice@example.com',
    confirmation_mode: true,
    security_analyzer: analyzer,
  });

async function comment(issue: number, login: string, body: string) {
  const id = github.addIssueComment('acme/app', issue, { body, user: login });
  const payload = {
    action: 'created',
    issue: { number: issue, title: 'Careful' },
    comment: { id, body, user: { login, type: 'User' }, author_association: 'COLLABORATOR' },
    sender: { login, type: 'User' },
    repository: { full_name: 'acme/app', owner: { login: 'acme' } },
    installation: { id: 1 },
  };
  const text = JSON.stringify(payload);
  return platform.events.ingestGithub({ headers: githubHeaders(WEBHOOK_SECRET, 'issue_comment', text), body: new TextEncoder().encode(text) });
}

/** Waits for `check` for up to 45 s. */
const until = (check: () => boolean | Promise<boolean>) => pollUntil(check, 45_000);

const runOf = (id: string): Promise<Run> => platform.automations.getRun(alice, id);
const finished = async (id: string): Promise<Run> => {
  await until(async () => ['COMPLETED', 'FAILED', 'CANCELLED'].includes((await runOf(id)).status));
  return runOf(id);
};
/** The approval requests the agent posted in the issue. */
const held = (issue: number) => github.comments('acme/app', issue).filter((one) => one.user.login === AGENT && one.body.includes('waits for approval'));
const eventsOf = async (run: Run): Promise<ConversationEvent[]> => (await platform.conversations.events(alice, run.conversation_id!, { limit: 100 })).items;
const actionsOf = (events: ConversationEvent[]) => events.filter((event) => event.kind === 'ActionEvent').map((event) => event.data as Record<string, any>);

describe('the policy analyzer', () => {
  it('runs a harmless command at once, holds a force push to main with its risk in the thread, and a /reject keeps main', async () => {
    await storeSettings('policy');
    const mainBefore = (await git.refs('acme/app'))['refs/heads/main'];
    const issue = github.addIssue('acme/app', { title: 'Careful' });
    const [runId] = (await comment(issue, 'carol', '@agent task:policy tidy up')).runs_created;

    await until(() => held(issue).length === 1);
    const asking = held(issue)[0]!.body;
    expect(asking).toContain('git push --force origin main');
    expect(asking).toContain('Risk: **HIGH** — `force push to main`');
    // The harmless command did not wait: it has run (its observation is stored) before the push was held.
    const whileHeld = await eventsOf(await runOf(runId!));
    expect(whileHeld.filter((event) => event.kind === 'ObservationEvent')).toHaveLength(1);

    await comment(issue, 'carol', '/reject no force pushes to main');
    const run = await finished(runId!);
    expect(run.status).toBe('COMPLETED');
    expect(held(issue)).toHaveLength(1);
    expect((await git.refs('acme/app'))['refs/heads/main']).toBe(mainBefore);

    const events = await eventsOf(run);
    expect(actionsOf(events).map((data) => [data.tool_name, data.security_risk, data.security_risk_reason])).toEqual([
      ['terminal', 'LOW', 'no rule applies'],
      ['terminal', 'HIGH', 'force push to main'],
      ['finish', 'LOW', 'changes nothing'],
    ]);
    expect(events.find((event) => event.kind === 'UserRejectObservation')?.data).toMatchObject({ rejection_reason: 'no force pushes to main' });
    expect(riskAsked.policy).toBe(false);
  }, 90_000);
});

describe('the llm analyzer', () => {
  it('asks the model to rate each action: what it rates LOW runs, what it rates HIGH waits for /approve', async () => {
    await storeSettings('llm');
    const issue = github.addIssue('acme/app', { title: 'Careful' });
    const [runId] = (await comment(issue, 'carol', '@agent task:llm push a branch')).runs_created;

    await until(() => held(issue).length === 1);
    const asking = held(issue)[0]!.body;
    expect(asking).toContain('git push -q origin agent/approved');
    expect(asking).toContain('Risk: **HIGH** — `the model rates it HIGH`');
    expect((await git.refs('acme/app'))['refs/heads/agent/approved']).toBeUndefined();

    await comment(issue, 'carol', '/approve go ahead');
    const run = await finished(runId!);
    expect(run.status).toBe('COMPLETED');
    expect(held(issue)).toHaveLength(1);
    expect((await git.refs('acme/app'))['refs/heads/agent/approved']).toBeDefined();

    const actions = actionsOf(await eventsOf(run));
    expect(actions.map((data) => data.security_risk)).toEqual(['LOW', 'HIGH', 'LOW']);
    // The tool got its own arguments; the call keeps the model's rating.
    expect(actions[0]!.action).toEqual({ kind: 'TerminalAction', command: 'echo low-risk check' });
    expect(JSON.parse(actions[0]!.tool_call.function.arguments)).toMatchObject({ security_risk: 'LOW' });
    expect(riskAsked.llm).toBe(true);
  }, 90_000);
});
