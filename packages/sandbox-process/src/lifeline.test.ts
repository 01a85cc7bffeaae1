import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecEvent, SandboxRuntime } from '@agent-platform/core';
import { uniqueId } from '@agent-platform/testing';
import type { HostOptions, HostReport } from '../test-support/lifeline-host.js';
import { GATE, SHELL } from './exec-run.js';
import { DEFAULT_SPEC_ID, createProcessRuntime } from './index.js';
import { lifelinePid } from './lifeline.js';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const hostScript = join(packageDir, 'test-support', 'lifeline-host.ts');
/** How soon after its host's death a command must be gone. */
const LIFELINE_MS = 2_000;
/** Liveness bound for everything else (a host starting, a directory removed): a loaded machine is slow. */
const PROMPT_MS = 15_000;

/** A live (not zombie) process's state letter; undefined when it is gone. */
function processState(pid: number): string | undefined {
  if (process.platform !== 'linux') {
    try {
      process.kill(pid, 0);
      return 'R';
    } catch {
      return undefined;
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X' ? undefined : state;
  } catch {
    return undefined;
  }
}

/** The live processes of a group (Linux: read from `/proc`; elsewhere the leader, if alive). */
function members(pgid: number): number[] {
  if (process.platform !== 'linux') return processState(pgid) ? [pgid] : [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Polls `condition` until it holds, failing after `ms`; resolves to the time it took. */
async function within(ms: number, what: string, condition: () => boolean): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

interface Host {
  pid: number;
  report: HostReport;
  exited: Promise<number | null>;
}

/** Groups and directories the hosts made, cleaned up whatever the outcome of a test. */
const leftovers = { pgids: new Set<number>(), pids: new Set<number>(), dirs: new Set<string>() };

afterEach(async () => {
  for (const pgid of leftovers.pgids) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  for (const pid of leftovers.pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const dir of leftovers.dirs) await rm(dir, { recursive: true, force: true });
  leftovers.pgids.clear();
  leftovers.pids.clear();
  leftovers.dirs.clear();
});

/** Starts a host in a Node process of its own; resolves once its commands run. */
async function startHost(options: HostOptions): Promise<Host> {
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', hostScript, JSON.stringify(options)], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not start the host');
  leftovers.pids.add(child.pid);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const report = await new Promise<HostReport>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(JSON.parse(stdout) as HostReport);
    });
    void exited.then((code) => reject(new Error(`the host exited (${code}) before reporting: ${stderr}`)));
  });
  for (const pgid of report.pgids) leftovers.pgids.add(pgid);
  leftovers.pids.add(report.keeper);
  leftovers.dirs.add(report.sandboxDir);
  return { pid: child.pid, report, exited };
}

/** SIGKILLs the host; resolves to how long its commands took to be gone (failing after {@link LIFELINE_MS}). */
async function killHost(host: Host, pids: number[]): Promise<number> {
  process.kill(host.pid, 'SIGKILL');
  await host.exited;
  return within(LIFELINE_MS, 'every process of the commands to be gone', () => pids.every((pid) => processState(pid) === undefined));
}

const RUNNING = [
  'echo $$; exec sleep 300',
  // A shell that forks a grandchild, beside it.
  "echo $$; sh -c 'sleep 300 & sleep 300'",
];
/** Ends at once, leaving a background process. */
const FINISHED = ['sleep 300 > /dev/null 2>&1 & echo $$'];

describe('the lifeline', { timeout: 60_000 }, () => {
  it('a SIGKILLed host takes a bound sandbox with it: every process of every command, and its directory', async () => {
    const host = await startHost({ boundToProcess: true, running: RUNNING, finished: FINISHED });
    const groups = host.report.pgids.map(members);
    if (process.platform === 'linux') expect(groups.map((group) => group.length)).toEqual([1, 4, 1]);
    const elapsed = await killHost(host, groups.flat());
    expect(elapsed).toBeLessThan(LIFELINE_MS);
    for (const pgid of host.report.pgids) expect(members(pgid)).toEqual([]);
    // The sandbox goes, and the runtime's own root with it, now empty.
    await within(PROMPT_MS, 'the sandbox directory to be removed', () => !existsSync(host.report.sandboxDir));
    await within(PROMPT_MS, 'the runtime root to be removed', () => !existsSync(dirname(host.report.sandboxDir)));
  });

  it('without boundToProcess the commands die with the host too, paused ones included; the directory stays', async () => {
    const rootDir = await mkdtemp(join(tmpdir(), 'lifeline-test-'));
    leftovers.dirs.add(rootDir);
    // Before it, a bound sandbox of the same id was deleted: its directory is no longer the keeper's to remove.
    const options = { boundToProcess: false, rootDir, running: RUNNING, finished: FINISHED, pause: true, deletedFirst: true };
    const host = await startHost(options);
    const pids = host.report.pgids.flatMap(members);
    if (process.platform === 'linux') {
      expect(pids).toHaveLength(6);
      await within(PROMPT_MS, 'the sandbox to be stopped', () => pids.every((pid) => processState(pid) === 'T'));
    }
    await killHost(host, pids);
    await within(PROMPT_MS, 'the keeper to be done', () => processState(host.report.keeper) === undefined);
    expect(existsSync(join(host.report.sandboxDir, 'workspace'))).toBe(true);
  });

  it('a keeper killed from outside is replaced by one that holds everything it held', async () => {
    const host = await startHost({ boundToProcess: true, running: RUNNING, finished: FINISHED, killKeeper: true });
    expect(host.report.keeper).not.toBe(host.report.killedKeeper);
    expect(processState(host.report.killedKeeper ?? 0)).toBeUndefined();
    const pids = host.report.pgids.flatMap(members);
    expect(pids.length).toBeGreaterThan(0);
    await killHost(host, pids);
    await within(PROMPT_MS, 'the sandbox directory to be removed', () => !existsSync(host.report.sandboxDir));
  });

  it('keeps no host alive: a host that returns with a runtime open exits, and its commands die', async () => {
    const host = await startHost({ boundToProcess: false, running: [], finished: FINISHED, linger: false });
    const pids = host.report.pgids.flatMap(members);
    expect(await host.exited).toBe(0);
    await within(LIFELINE_MS, 'the background process to be gone', () => pids.every((pid) => processState(pid) === undefined));
    await within(PROMPT_MS, 'the keeper to be done', () => processState(host.report.keeper) === undefined);
  });
});

describe('the lifeline, in this process', () => {
  let runtime: SandboxRuntime | undefined;

  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  async function output(id: string, command: string): Promise<string> {
    let stdout = '';
    const events: ExecEvent[] = [];
    for await (const event of (runtime as SandboxRuntime).exec(id, { command })) {
      events.push(event);
      if (event.type === 'stdout') stdout += event.data;
    }
    expect(events.at(-1)).toMatchObject({ type: 'exit', result: { exitCode: 0 } });
    return stdout;
  }

  it('refuses a boundToProcess that is not a boolean', async () => {
    runtime = createProcessRuntime();
    const start = runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID, boundToProcess: 'yes' as never });
    await expect(start).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('is not inherited by the command, nor by what it starts', async () => {
    runtime = createProcessRuntime();
    const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID, boundToProcess: true });
    const probe = '{ true >&3; } 2>/dev/null && echo open || echo closed';
    expect(await output(id, `${probe}; sh -c '${probe.replace(/'/g, "'\\''")}'`)).toBe('closed\nclosed\n');
  });

  it('the gate: a shell whose runtime died before it opened runs nothing', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'lifeline-gate-'));
    leftovers.dirs.add(scratch);
    const shell = spawn(SHELL, ['-c', `${GATE}touch ran`], { cwd: scratch, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    shell.stdio[3]?.destroy();
    const code = await new Promise((resolve) => shell.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(existsSync(join(scratch, 'ran'))).toBe(false);
  });

  it('stops its keeper once no runtime needs it', async () => {
    runtime = createProcessRuntime();
    const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
    await output(id, 'true');
    const keeper = lifelinePid();
    expect(keeper).toBeGreaterThan(0);
    await runtime.close();
    runtime = undefined;
    expect(lifelinePid()).toBeUndefined();
    await within(PROMPT_MS, 'the keeper to exit', () => processState(keeper ?? 0) === undefined);
  });
});
