/**
 * A follow-up in a thread: the time from a follow-up comment's delivery (a signed GitHub
 * `issue_comment` mentioning the agent, from a collaborator with write permission) to the agent's
 * first model call for it, p50 and p99 — the thread's conversation resumed (its history read and
 * the new comment appended), a fresh sandbox, the repository cloned on the thread's branch. Beside
 * it, the same for a first mention in a new issue (a new conversation), and how many events the
 * resumed history held at the end. One process: memory storage, the process runtime, the built-in
 * agent against the fake LLM, the GitHub stand-in and a real git server on loopback. Prints one
 * line.
 *
 *   npx tsx --conditions=agent-platform-source thread-follow-up.ts [follow-ups]
 */
import { randomUUID } from 'node:crypto';
import { createLlmAgentRunner } from '@agent-platform/agent';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, signGithub, type AgentPlatform } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { startFakeLlmServer, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { startGitServer } from '@agent-platform/testing/git-server';
import { startGitHubApi } from '@agent-platform/testing/github-api';
import { percentile } from './support/stats.js';

const followUps = Number(process.argv[2] ?? 30);
const newThreads = 10;
const TOKEN = 'ghp_bench_threads_token_0000';
const LLM_KEY = 'sk-bench-threads';
const SECRET = 'bench-threads-webhook-secret';
const alice = { userId: 'alice', orgId: 'acme' };

const clock = () => performance.timeOrigin + performance.now();

/** When the model first heard of each ask (its tag `ask-<n>` in the last user message). */
const firstCall = new Map<string, number>();
let historyMessages = 0;

function respond(request: RecordedLlmRequest) {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const last = JSON.stringify(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');
  const tag = /ask-\d+/.exec(last)?.[0];
  if (tag && !firstCall.has(tag)) {
    firstCall.set(tag, clock());
    historyMessages = messages.length;
  }
  return { toolCalls: [{ name: 'finish', arguments: { message: `done ${tag ?? ''}` } }] };
}

const git = await startGitServer({ token: TOKEN });
await git.createRepository('acme/app', { files: { 'README.md': '# app\n' } });
const github = await startGitHubApi({ tokens: { [TOKEN]: { login: 'acme-agent[bot]', type: 'Bot' } }, git });
github.addRepository('acme/app');
github.addCollaborator('acme/app', 'carol', 'write');
const llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
const runtime = createProcessRuntime();
const platform: AgentPlatform = createAgentPlatform({
  storage: createMemoryStorage(),
  secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
  publicUrl: 'http://localhost',
  runtime,
  agent: createLlmAgentRunner(),
  executor: { pollIntervalMs: 1000 },
  github: { webhookSecrets: [SECRET], resolveOrgs: () => ['acme'] },
});
await platform.start();
await platform.settings.store(alice, { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1`, git_user_name: 'Alice' });
await platform.gitProviders.store(alice, { provider_tokens: { github: { token: TOKEN, host: github.url } } });
await platform.automations.create(alice, { name: 'agent', trigger: { type: 'event', source: 'github', mention: '@agent' }, instructions: 'Answer.' });

let asks = 0;
/** A mention in `issue`; resolves with the time from its delivery to the model's first call for it, once its run ended. */
async function ask(issue: number): Promise<number> {
  const tag = `ask-${asks++}`;
  const body = `@agent please look (${tag})`;
  const id = github.addIssueComment('acme/app', issue, { body, user: 'carol' });
  const payload = JSON.stringify({
    action: 'created',
    issue: { number: issue },
    comment: { id, body, user: { login: 'carol', type: 'User' }, author_association: 'COLLABORATOR' },
    sender: { login: 'carol', type: 'User' },
    repository: { full_name: 'acme/app' },
    installation: { id: 1 },
  });
  const sent = clock();
  const result = await platform.events.ingestGithub({
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': signGithub(SECRET, payload),
    },
    body: new TextEncoder().encode(payload),
  });
  const runId = result.runs_created[0];
  if (!runId) throw new Error(`no run for ${tag}`);
  for (;;) {
    const run = await platform.automations.getRun(alice, runId);
    if (['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(run.status)) {
      if (run.status !== 'COMPLETED') throw new Error(`${tag}: ${run.status} ${run.error_detail}`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const at = firstCall.get(tag);
  if (at === undefined) throw new Error(`the model never heard of ${tag}`);
  return at - sent;
}

try {
  const fresh: number[] = [];
  for (let n = 0; n < newThreads + 2; n++) {
    const latency = await ask(github.addIssue('acme/app', { title: `New ${n}` }));
    if (n >= 2) fresh.push(latency); // the first two warm up
  }
  const thread = github.addIssue('acme/app', { title: 'Long thread' });
  await ask(thread);
  const continued: number[] = [];
  for (let n = 0; n < followUps; n++) continued.push(await ask(thread));
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  console.log(
    `thread-follow-up (${followUps} follow-ups in one issue, one at a time): delivery -> first model call p50 ${ms(percentile(continued, 50))} p99 ${ms(percentile(continued, 99))}` +
      ` (conversation resumed, ${historyMessages} messages shown at the last)` +
      ` | a first mention in a new issue (${newThreads}): p50 ${ms(percentile(fresh, 50))} p99 ${ms(percentile(fresh, 99))}`,
  );
} finally {
  await platform.stop();
  await runtime.close();
  await llm.close();
  await github.close();
  await git.close();
}
