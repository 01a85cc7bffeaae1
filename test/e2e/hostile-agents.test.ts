/**
 * The hostile-agent battery: agents that attack their sandbox — a fork bomb, a memory hog, an
 * output flood, a disk filler, a process that ignores SIGTERM — run on the Docker runtime through
 * the platform (the engine, its run executor and the command agent, behind the real HTTP handler
 * on a loopback socket), with small limits (256 MiB of memory, 128 processes, a 64 MiB tmpfs
 * `/tmp`, 64 KiB of output kept per command) so it is quick. Each must end its run with a reason
 * that says what happened and leave no container behind, while a health probe gets its answers
 * within 250 ms (see {@link HEALTH_BUDGET_MS}) and a well-behaved run beside it completes.
 *
 * The battery runs under runc (Docker's default) and again under gVisor (`runsc`, registered by
 * scripts/docker-setup.sh), where a memory or process limit stops the whole sandbox and the run's
 * reason says so; the output flood, held by how the runtime reads output whatever the runtime
 * class, runs under runc only.
 *
 * Docker: in CI (`.ci/run` starts an engine, builds the image and registers runsc) this must run,
 * not skip.
 */
import Dockerode from 'dockerode';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../packages/http/test-support/harness.js';
import { createDockerRuntime } from '../../packages/sandbox-docker/src/index.js';
import { probeHealth, type ProbeReport } from './support/health-probe.js';
import { serverRuntimes, TEST_IMAGE } from './support/runtimes.js';
import { runtimeClasses } from './support/runsc.js';

const MiB = 1024 ** 2;
/**
 * Health answers must come within this, whatever the agents do: 99 in 100 of them, and every one
 * within {@link HEALTH_CEILING_MS}. The probe and the platform share this process and a 2-CPU
 * machine with the other test files (and the attacks' containers): a garbage-collection pause or
 * the scheduler can cost a single answer more than 100 ms on a loaded machine (the figures are
 * printed at the end), while what this battery guards against — an attack holding the event
 * loop (an output flood did for 4.5 s before output went out in pieces) — breaks both. The
 * budget is ten times a quiet p99 of about 25 ms: a loaded 2-core CI machine saw 111 ms with
 * nothing holding the loop. The single slowest answer may wait longer: 612 ms once at a load
 * average of 19 with nothing holding the loop (the scheduler's delay, 496 ms of it), so its
 * ceiling is 1 s — the stalls it guards against last seconds.
 */
const HEALTH_BUDGET_MS = 250;
const HEALTH_CEILING_MS = 1_000;

// The agent: what its instructions name. busybox's sh takes no `:` as a function name, so the
// classic `:(){ :|:& };:` is spelled with `bomb`; the agent then goes on starting work in the
// background until the shell cannot fork any more (it exits 2 then).
const AGENT = `case "$AGENT_PLATFORM_INSTRUCTIONS" in
  fork-bomb) bomb(){ bomb|bomb& }; bomb; while :; do sleep 60 & done;;
  memory-hog) dd if=/dev/zero of=/dev/null bs=1G count=1;;
  output-flood) yes;;
  disk-filler) dd if=/dev/zero of=/tmp/fill bs=1M count=100000;;
  term-ignorer) trap '' TERM; sleep 1000;;
  well-behaved) echo ok;;
esac`;

const onDocker = (await serverRuntimes('hostile agents on docker')).some((runtime) => runtime.name === 'docker');
// The same battery under runc (Docker's default) and gVisor (runsc), where the engine has it.
const { classes, runscSkip } = onDocker ? await runtimeClasses() : { classes: [], runscSkip: null };
if (onDocker && runscSkip) describe('hostile agents under gVisor', () => it.skip(runscSkip, () => {}));
const docker = new Dockerode();
/** Max /health latency per attack, reported at the end. */
const latencies: Record<string, ProbeReport> = {};

describe.runIf(onDocker).each(classes)('hostile agents on the Docker runtime under %s', { timeout: 60_000 }, (runtimeClass) => {
  let harness: Harness;
  let runtime: SandboxRuntime;
  const automations = new Map<string, string>();
  /** The sandboxes of every run, hostile or not: none may be left. */
  const sandboxIds: string[] = [];
  /** How long each well-behaved run took, dispatch to end, beside an attack: a whole run under this runtime class. */
  const wellMs: number[] = [];

  const api = async (method: string, route: string, json?: unknown) => {
    const response = await harness.request(method, route, json === undefined ? {} : { json });
    if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${response.text}`);
    return response.json;
  };
  const automation = async (instructions: string, timeoutSeconds: number) => {
    const created = await api('POST', '/api/automation/v1', {
      name: instructions,
      trigger: { type: 'event', source: 'ci', on: `hostile.${instructions}` },
      instructions,
      timeout_seconds: timeoutSeconds,
    });
    automations.set(instructions, created.id);
    return created.id as string;
  };
  /** Dispatches and resolves with the run once it has ended. */
  const runToEnd = async (automationId: string) => {
    const dispatched = await api('POST', `/api/automation/v1/${automationId}/dispatch`, { payload: {} });
    const runId = dispatched.run_id ?? dispatched.id;
    for (;;) {
      const runs = (await api('GET', `/api/automation/v1/${automationId}/runs`)).runs as any[];
      const run = runs.find((candidate) => candidate.id === runId) ?? runs[0];
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const outputsOf = async (conversationId: string) =>
    ((await api('GET', `/api/v1/app-conversations/${conversationId}/events`)).items as any[])
      .filter((event) => event.kind === 'agent_output')
      .map((event) => event.message);

  /** Runs the attack beside a well-behaved run, under the health probe. */
  async function attack(name: string, timeoutSeconds: number) {
    const hostileId = automations.get(name) ?? (await automation(name, timeoutSeconds));
    const wellId = automations.get('well-behaved') ?? (await automation('well-behaved', 60));
    const probe = probeHealth(`${harness.baseUrl}/health`);
    const began = Date.now();
    const [hostile, well] = await Promise.all([
      runToEnd(hostileId).then((run) => ({ run, ms: Date.now() - began })),
      // The well-behaved run starts while the attack is under way.
      new Promise((resolve) => setTimeout(resolve, 1_000)).then(async () => {
        const dispatched = Date.now();
        const run = await runToEnd(wellId);
        wellMs.push(Date.now() - dispatched);
        return run;
      }),
    ]);
    const health = await probe.stop();
    latencies[`${runtimeClass} ${name}`] = health;
    sandboxIds.push(hostile.run.sandbox_id, well.sandbox_id);
    expect(well).toMatchObject({ status: 'COMPLETED', error_detail: null });
    expect(await outputsOf(well.conversation_id)).toEqual(['ok']);
    // The run's sandbox is gone with it.
    expect((await api('GET', `/api/v1/sandboxes?id=${hostile.run.sandbox_id}`))[0]).toMatchObject({ status: 'MISSING' });
    expect(health.failed).toBe(0);
    expect(health.answered).toBeGreaterThan(10);
    expect(health.p99Ms, JSON.stringify(health)).toBeLessThan(HEALTH_BUDGET_MS);
    expect(health.maxMs, JSON.stringify(health)).toBeLessThan(HEALTH_CEILING_MS);
    return { run: hostile.run, ms: hostile.ms, health };
  }

  beforeAll(async () => {
    runtime = createDockerRuntime({
      images: [TEST_IMAGE],
      runtimeClass,
      limits: { memoryBytes: 256 * MiB, cpus: 1, pids: 128 },
      tmpBytes: 64 * MiB,
      diskBytes: 256 * MiB,
      // The command agent stores an event per output line: at the default 1 MiB a flood of "y"
      // lines is half a million events in memory, whose garbage collection alone can take the
      // probe past its budget; 64 KiB keeps the battery about containment.
      maxOutputBytes: 64 * 1024,
      pull: false,
    });
    harness = await startHarness('node', {
      platform: {
        runtime,
        agent: createCommandAgentRunner({ command: AGENT }),
        executor: { concurrency: 4, perOrgConcurrency: 4, pollIntervalMs: 100, retryBackoffMs: 100 },
      },
    });
    await harness.platform.start();
    // A first run loads what runs load lazily (the engine client's modules, code compiled on
    // first use): the probe measures the platform under attack, not its warm-up.
    const warmUp = await runToEnd(await automation('well-behaved', 60));
    expect(warmUp.status).toBe('COMPLETED');
    sandboxIds.push(warmUp.sandbox_id);
  });
  afterAll(async () => {
    await harness?.platform.stop();
    await harness?.close();
    await runtime?.close();
    console.info(
      `hostile agents, /health while each ran: ${Object.entries(latencies)
        .map(
          ([name, report]) =>
            `${name} max ${report.maxMs} ms, p99 ${report.p99Ms} ms (${report.answered} answers; event loop ${report.loopDelayMaxMs} ms, GC ${report.gcMaxMs} ms at most)`,
        )
        .join('; ')}; well-behaved runs under ${runtimeClass}, dispatch to end: ${[...wellMs].sort((a, b) => a - b).join(', ')} ms`,
    );
  });

  it('a fork bomb runs into the pids limit: its run fails saying so', async () => {
    // The reason, not the time, proves the pids limit ended it: a run stopped by its 20 s limit
    // says "timed out" (the time a loaded machine takes to get there is no part of the claim).
    // gVisor's processes are its own kernel's, not the host's: at the limit its whole sandbox
    // either stops (and the note says so) or stalls, forks neither failing nor succeeding, until
    // the run's time limit (10 s there, as it is the one other way such a run ends). Either way
    // it is contained: the run fails, the well-behaved run beside it completes, the probe holds.
    const { run } = await attack('fork-bomb', runtimeClass === 'runsc' ? 10 : 20);
    expect(run.status).toBe('FAILED');
    expect(run.error_detail).toMatch(
      runtimeClass === 'runsc'
        ? /sandbox: the sandbox stopped while the command ran \(its runtime exited with code \d+\): under gVisor that is what running into the process limit \(128 processes\) does$|^timed out after 10 s$/
        : /sandbox: the process limit was reached \(128 processes\): new processes could not start$/,
    );
  });

  it('a memory hog is killed at the memory limit: its run fails saying so', async () => {
    const { run } = await attack('memory-hog', 20);
    expect(run.status).toBe('FAILED');
    expect(run.error_detail).toMatch(
      runtimeClass === 'runsc'
        ? // Under gVisor the hog sometimes stalls the sandbox until the run's limit instead (as the fork bomb does): contained either way.
          /sandbox: killed: out of memory \(the sandbox's memory limit is 256 MiB\)(: the sandbox stopped)?$|^timed out after 20 s$/
        : /sandbox: killed: out of memory \(the sandbox's memory limit is 256 MiB\)$/,
    );
  });

  // The flood is held by how the runtime reads output, the same whatever runs the container: under
  // runc alone, sparing CI its 8 s under gVisor.
  it.runIf(runtimeClass === 'runc')('an output flood is stopped at the run’s time limit, its output cut at the runtime’s bound', async () => {
    const { run, ms } = await attack('output-flood', 5);
    expect(run).toMatchObject({ status: 'FAILED', error_detail: 'timed out after 5 s' });
    // What the runtime kept (its 64 KiB bound: 32,768 "y" lines, an event each with the command
    // agent) is in the conversation; the gigabytes after it are not.
    const outputs = await outputsOf(run.conversation_id);
    expect(outputs.length).toBeGreaterThan(0);
    expect(new Set(outputs)).toEqual(new Set(['y']));
    expect(ms).toBeLessThan(30_000);
  });

  it('a disk filler fills its size-limited /tmp, not the host’s disk: its run fails saying so', async () => {
    const { run } = await attack('disk-filler', 20);
    expect(run.status).toBe('FAILED');
    expect(run.error_detail).toContain("dd: error writing '/tmp/fill': No space left on device");
  });

  it('a process that ignores SIGTERM is killed at the time limit', async () => {
    const { run, ms } = await attack('term-ignorer', 3);
    expect(run).toMatchObject({ status: 'FAILED', error_detail: 'timed out after 3 s' });
    // Killed, not left to Docker's 10 s stop grace: that would end it at 13 s or later. The bound
    // leaves 9 s for a loaded 2-core machine (8.9 s seen in CI).
    expect(ms).toBeLessThan(3_000 + 9_000);
  });

  it('leaves no container or volume of its runs behind', async () => {
    // The warm-up, and each attack's run beside a well-behaved one.
    expect(sandboxIds.length).toBe(runtimeClass === 'runc' ? 11 : 9);
    for (const sandboxId of sandboxIds) {
      await expect(docker.getContainer(`agent-platform-${sandboxId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
      await expect(docker.getVolume(`agent-platform-${sandboxId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
    }
  });
});
