import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type Logger,
  type LogLevel,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { flakyStartRuntime } from '@agent-platform/testing/flaky-runtime';
import { makeRunRecord } from '@agent-platform/testing/fixtures';

const alice = { userId: 'alice', orgId: 'acme' };

interface Line {
  level: LogLevel;
  obj: Record<string, unknown>;
  msg: string | undefined;
}

function recordingLogger() {
  const lines: Line[] = [];
  const at = (level: LogLevel) => (obj: object, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines, runLines: (runId: string) => lines.filter((line) => line.obj.kind === 'run' && line.obj.runId === runId) };
}

let platform: AgentPlatform | null = null;
let runtime: SandboxRuntime | null = null;
afterEach(async () => {
  await platform?.stop();
  await runtime?.close();
  platform = null;
  runtime = null;
});

async function setup(logger: Logger, command: string, options: { runtime?: SandboxRuntime; start?: boolean } = {}) {
  runtime = options.runtime ?? createProcessRuntime();
  platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    logger,
    runtime,
    agent: createCommandAgentRunner({ command }),
    executor: { pollIntervalMs: 50, retryBackoffMs: 10 },
  });
  if (options.start !== false) await platform.start();
  const automation = await platform.automations.create(alice, {
    name: 'triage',
    trigger: { type: 'event', source: 'github', on: 'issues.opened' },
    instructions: 'Triage',
  });
  return { p: platform, automationId: automation.id };
}

describe('run transition log lines', () => {
  it('logs a run that fails: started at info, failed at warn with the stored reason', async () => {
    const { logger, runLines } = recordingLogger();
    const { p, automationId } = await setup(logger, 'echo "cannot reach the model" >&2; exit 2');
    const run = await p.automations.dispatch(alice, automationId, {});
    await p.executor!.idle();
    const common = { kind: 'run', runId: run.id, automationId, orgId: 'acme', attempt: 1 };
    expect(runLines(run.id)).toEqual([
      { level: 'info', msg: 'run started', obj: { ...common, from: 'PENDING', to: 'RUNNING' } },
      { level: 'warn', msg: 'run failed', obj: { ...common, from: 'RUNNING', to: 'FAILED', reason: 'cannot reach the model' } },
    ]);
  });

  it('logs a completed run', async () => {
    const { logger, runLines } = recordingLogger();
    const { p, automationId } = await setup(logger, 'echo ok');
    const run = await p.automations.dispatch(alice, automationId, {});
    await p.executor!.idle();
    expect(runLines(run.id).map((line) => [line.level, line.obj.from, line.obj.to])).toEqual([
      ['info', 'PENDING', 'RUNNING'],
      ['info', 'RUNNING', 'COMPLETED'],
    ]);
  });

  it('logs a cancel of a PENDING run, and of a RUNNING one once (the executor adds no line)', async () => {
    const { logger, runLines } = recordingLogger();
    const { p, automationId } = await setup(logger, 'echo started; sleep 30', { start: false });
    const pending = await p.automations.dispatch(alice, automationId, {});
    await p.automations.cancelRun(alice, pending.id);
    expect(runLines(pending.id)).toEqual([
      {
        level: 'info',
        msg: 'run cancelled',
        obj: { kind: 'run', runId: pending.id, automationId, orgId: 'acme', from: null, to: 'CANCELLED', attempt: 0, reason: 'cancelled by user' },
      },
    ]);

    await p.start();
    const running = await p.automations.dispatch(alice, automationId, {});
    for (let i = 0; i < 200 && !(await p.automations.getRun(alice, running.id)).conversation_id; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await p.automations.cancelRun(alice, running.id);
    await p.executor!.idle();
    expect(runLines(running.id).map((line) => [line.msg, line.obj.to, line.obj.reason])).toEqual([
      ['run started', 'RUNNING', undefined],
      ['run cancelled', 'CANCELLED', 'cancelled by user'],
    ]);
  });

  it('logs a failed attempt handed back for a retry at warn, then the retry', async () => {
    const flaky = flakyStartRuntime(createProcessRuntime(), 1);
    const { logger, runLines } = recordingLogger();
    const { p, automationId } = await setup(logger, 'echo ok', { runtime: flaky });
    const run = await p.automations.dispatch(alice, automationId, {});
    await p.executor!.idle();
    const lines = runLines(run.id);
    expect(lines.map((line) => [line.level, line.obj.from, line.obj.to, line.obj.attempt])).toEqual([
      ['info', 'PENDING', 'RUNNING', 1],
      ['warn', 'RUNNING', 'PENDING', 1],
      ['info', 'PENDING', 'RUNNING', 2],
      ['info', 'RUNNING', 'COMPLETED', 2],
    ]);
    expect(lines[1]).toMatchObject({
      msg: 'run requeued',
      obj: { reason: expect.stringMatching(/^attempt 1 failed: .*no capacity/), notBefore: expect.any(String) },
    });
  });

  it('logs runs taken back from a dead executor', async () => {
    const { logger, runLines } = recordingLogger();
    const { p, automationId } = await setup(logger, 'echo recovered', { start: false });
    const stranded = makeRunRecord({
      org_id: 'acme',
      automation_id: automationId,
      status: 'RUNNING',
      attempt: 1,
      delivery_id: null,
      dispatch_payload_json: null,
    });
    await p.storage.runs.insertMany([stranded]);
    await p.start();
    await p.executor!.idle();
    expect(runLines(stranded.id).map((line) => [line.level, line.obj.from, line.obj.to, line.obj.reason])).toEqual([
      ['warn', 'RUNNING', 'PENDING', 'attempt 1 was interrupted: its executor stopped'],
      ['info', 'PENDING', 'RUNNING', undefined],
      ['info', 'RUNNING', 'COMPLETED', undefined],
    ]);
  });
});
