/**
 * A host for the lifeline tests: a process runtime in a Node process of its own, for the test to
 * kill. Run it with `node --conditions=agent-platform-source --import tsx lifeline-host.ts '<json>'`
 * ({@link HostOptions}). It starts one sandbox and its commands, each of which must print its
 * `$$` (its process group) first; prints one JSON line ({@link HostReport}) once they all run;
 * then waits to be killed, or returns (`linger: false`) without closing the runtime.
 * @module
 */
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProcessRuntime } from '../src/index.js';
import { lifelinePid } from '../src/lifeline.js';

export interface HostOptions {
  boundToProcess: boolean;
  /** Default: a fresh directory under the temp dir (the runtime's own). */
  rootDir?: string;
  /** Left running: the test sees them in the middle of their work. */
  running: string[];
  /** Run to their end (what they leave in the background stays). */
  finished: string[];
  /** Pause the sandbox once everything runs. */
  pause?: boolean;
  /** SIGKILL the lifeline's keeper, and wait for its replacement. */
  killKeeper?: boolean;
  /**
   * First start a bound sandbox of the same id, run a command in it and delete it: what the
   * keeper was given for it must be taken back.
   */
  deletedFirst?: boolean;
  /** Default true: wait to be killed. False: return, the runtime still open. */
  linger?: boolean;
}

export interface HostReport {
  /** The process group of each command, `running` then `finished`. */
  pgids: number[];
  sandboxDir: string;
  /** The keeper's pid (after the replacement, with `killKeeper`). */
  keeper: number;
  /** The keeper killed, with `killKeeper`. */
  killedKeeper?: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as HostOptions;
const runtime = createProcessRuntime(options.rootDir === undefined ? {} : { rootDir: options.rootDir });
if (options.deletedFirst) {
  const first = await runtime.start({ sandboxId: 'lifeline', specId: 'process-default', boundToProcess: true });
  for await (const event of runtime.exec(first.id, { command: 'echo gone' })) void event;
  await runtime.delete(first.id);
}
const sandbox = await runtime.start({ sandboxId: 'lifeline', specId: 'process-default', boundToProcess: options.boundToProcess });

const pgids: number[] = [];
for (const command of options.running) {
  const events = runtime.exec(sandbox.id, { command })[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.value?.type !== 'stdout') throw new Error(`${command}: no output first`);
  pgids.push(Number.parseInt(first.value.data, 10));
  void (async () => {
    while (!(await events.next()).done);
  })();
}
for (const command of options.finished) {
  let stdout = '';
  for await (const event of runtime.exec(sandbox.id, { command })) if (event.type === 'stdout') stdout += event.data;
  pgids.push(Number.parseInt(stdout, 10));
}
if (options.pause) await runtime.pause(sandbox.id);

const report: HostReport = { pgids, sandboxDir: dirname(sandbox.workingDir), keeper: lifelinePid() ?? 0 };
if (options.killKeeper) {
  report.killedKeeper = report.keeper;
  process.kill(report.keeper, 'SIGKILL');
  while (lifelinePid() === undefined || lifelinePid() === report.killedKeeper) await sleep(20);
  report.keeper = lifelinePid() ?? 0;
}
process.stdout.write(`${JSON.stringify(report)}\n`);
if (options.linger !== false) setInterval(() => undefined, 60_000);
