/**
 * Durable agent runs on PostgreSQL: two workers, the built-in agent with the scripted model, and
 * the worker holding the run killed with SIGKILL at the two moments that matter:
 * - between a tool call's observation and the next model call: the other worker takes the run up
 *   after the lease lapses and calls the model with the stored history (the observation in it);
 *   the command is not run again;
 * - between a tool call's start and its observation: the killed attempt's command dies with its
 *   worker, the model is told the call was interrupted, and nothing runs it again unasked.
 * The sandbox's own record of commands is a ledger file each command appends to.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { admin, createTestDatabase, serverEnv, until } from './support/run-nodes.js';
import { apiClient } from './support/http-api.js';
import { startServer, startWorker, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-durable-key-0123456789abcdef';
const LLM_KEY = 'sk-e2e-durable-llm-key-4f2a';
const SECRET_KEY = Buffer.alloc(32, 11).toString('base64');

const processes: RunningServer[] = [];
const databases: string[] = [];
const clients: pg.Client[] = [];
const models: FakeLlmServer[] = [];
const folder = mkdtempSync(path.join(tmpdir(), 'ap-durable-'));

afterAll(async () => {
  for (const running of processes) if (running.child.exitCode === null) running.child.kill('SIGKILL');
  for (const model of models) await model.close().catch(() => {});
  for (const client of clients) await client.end().catch(() => {});
  for (const name of databases) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  rmSync(folder, { recursive: true, force: true });
}, 60_000);

type Message = { role: string; content: unknown };
const messagesOf = (request: RecordedLlmRequest) => request.body.messages as Message[];
const textOf = (messages: Message[]) => JSON.stringify(messages);
const assistantTurns = (request: RecordedLlmRequest) => messagesOf(request).filter((message) => message.role === 'assistant').length;

/** A database, an API-only server, two workers on it (a 2 s lease), and the owner's model settings pointing at `llm`. */
async function cluster(llm: FakeLlmServer) {
  const { name, url } = await createTestDatabase('ap_durable');
  databases.push(name);
  const env = { ...serverEnv(url, KEY, SECRET_KEY), AGENT_PLATFORM_RUN_LEASE_SECONDS: '2' };
  const server = await startServer('examples/server', { ...env, AGENT_PLATFORM_EXECUTOR: 'off' });
  processes.push(server);
  const workers = [await startWorker('examples/server', env), await startWorker('examples/server', env)];
  processes.push(...workers);
  const db = new pg.Client({ connectionString: url });
  db.on('error', () => {});
  clients.push(db);
  await db.connect();
  const call = apiClient(server.baseUrl, KEY);
  const settings = await call('POST', '/api/settings', { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1` });
  expect(settings.status).toBe(200);
  return { server, workers, db, call };
}

/** Dispatches a run of a new automation; its id. */
async function dispatch(call: ReturnType<typeof apiClient>): Promise<string> {
  const automation = await call('POST', '/api/automation/v1', {
    name: 'durable',
    trigger: { type: 'event', source: 'ci', on: 'build' },
    instructions: 'Do the task.',
  });
  expect(automation.status).toBe(201);
  const run = await call('POST', `/api/automation/v1/${automation.json.id}/dispatch`, {});
  expect(run.status).toBe(201);
  return run.json.id as string;
}

const readRun = async (db: pg.Client, id: string) =>
  (
    await db.query<{ status: string; owner: string | null; attempt: number; conversation: string | null; error: string | null }>(
      `SELECT status, data->>'lease_owner' AS owner, (data->>'attempt')::int AS attempt, data->>'conversation_id' AS conversation,
              data->>'error_detail' AS error FROM agent_platform.runs WHERE id = $1`,
      [id],
    )
  ).rows[0];

/** The worker holding the run, by its `worker ready` log line's id. */
function holderOf(workers: RunningServer[], owner: string | null): RunningServer {
  const holder = workers.find((worker) => worker.output.join('').includes(`"workerId":"${owner}"`));
  if (!holder) throw new Error(`no worker holds ${owner}`);
  return holder;
}

const ledger = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

/** A fake model whose answers `script` decides, and whose calls a test can hold (never answered). */
async function model(script: (request: RecordedLlmRequest, index: number) => Promise<unknown> | unknown) {
  let index = 0;
  const llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond: (request) => script(request, index++) as never });
  models.push(llm);
  return llm;
}

const never = () => new Promise<never>(() => {});

describe('durable agent runs on PostgreSQL', { timeout: 120_000 }, () => {
  it('killed between an observation and the next model call: resumed from the stored events, the command not run again', async () => {
    const file = path.join(folder, 'ledger-observed');
    const llm = await model((request) => {
      const turns = assistantTurns(request);
      if (turns === 0) return { toolCalls: [{ name: 'terminal', arguments: { command: `echo ran >> ${file}; echo observed-output-7731` } }] };
      // The first attempt's second call is held: its worker is killed while it waits.
      if (!textOf(messagesOf(request)).includes('was interrupted')) return never();
      return { text: 'All done after the takeover.' };
    });
    const { workers, db, call } = await cluster(llm);
    const runId = await dispatch(call);
    await until(
      'the model called after the observation',
      async () => llm.requests.length,
      (count) => count >= 2,
      30_000,
    );
    const first = await readRun(db, runId);
    expect(first).toMatchObject({ status: 'RUNNING', attempt: 1 });
    holderOf(workers, first?.owner ?? null).child.kill('SIGKILL');

    const done = await until(
      'the run completed by the other worker',
      () => readRun(db, runId),
      (run) => run?.status === 'COMPLETED',
      60_000,
    );
    expect(done?.attempt).toBe(2);
    // The command ran once; the resumed model call carried its observation and the notice.
    expect(ledger(file)).toEqual(['ran']);
    const resumed = llm.requests.at(-1) as RecordedLlmRequest;
    expect(textOf(messagesOf(resumed))).toContain('observed-output-7731');
    expect(textOf(messagesOf(resumed))).toContain('You continue as attempt 2');
    expect(llm.requests.filter((request) => assistantTurns(request) === 0)).toHaveLength(1);

    // One conversation; its events say which attempt wrote them.
    const events = (await call('GET', `/api/v1/app-conversations/${done?.conversation}/events?limit=100`)).json.items as {
      kind: string;
      attempt?: number;
      data?: { type?: string };
    }[];
    expect(events.filter((event) => event.kind === 'ActionEvent')).toHaveLength(1);
    expect(events.find((event) => event.kind === 'ObservationEvent')?.attempt).toBe(1);
    expect(events.find((event) => event.data?.type === 'run_resumed')?.attempt).toBe(2);
    expect(events.filter((event) => event.kind === 'MessageEvent' && event.attempt === 2)).toHaveLength(1);
  });

  it('killed while a command runs: the command dies with its worker, and the model is told it was interrupted', async () => {
    const file = path.join(folder, 'ledger-interrupted');
    const marker = `${(17 + Math.random()).toFixed(4)}`;
    const llm = await model((request) => {
      const turns = assistantTurns(request);
      if (turns === 0) return { toolCalls: [{ name: 'terminal', arguments: { command: `echo start >> ${file}; sleep ${marker}; echo end >> ${file}` } }] };
      return { text: 'Stopped: the earlier command was interrupted.' };
    });
    const { workers, db, call } = await cluster(llm);
    const runId = await dispatch(call);
    await until(
      'the command started',
      async () => ledger(file),
      (lines) => lines.includes('start'),
      30_000,
    );
    const first = await readRun(db, runId);
    holderOf(workers, first?.owner ?? null).child.kill('SIGKILL');
    // The killed attempt's command goes with its worker: no `sleep <marker>` left anywhere.
    await until(
      'the orphaned command gone',
      async () => sleeping(marker),
      (pids) => pids.length === 0,
      5_000,
    );

    const done = await until(
      'the run completed by the other worker',
      () => readRun(db, runId),
      (run) => run?.status === 'COMPLETED',
      60_000,
    );
    expect(done?.attempt).toBe(2);
    const resumed = llm.requests.at(-1) as RecordedLlmRequest;
    expect(textOf(messagesOf(resumed))).toContain('This action was interrupted before its result was recorded');
    expect(llm.requests.filter((request) => assistantTurns(request) === 0)).toHaveLength(1);
    // Started once, never finished: not run a second time, and the first never went on.
    expect(ledger(file)).toEqual(['start']);
  });
});

/** Pids of processes running `sleep <marker>`. */
function sleeping(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}
