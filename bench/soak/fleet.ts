/**
 * The processes under test: reference servers (API + executor) and workers, each started as a
 * user starts it (`test/e2e/support/reference-server.ts`: a child process configured by
 * environment), each reaching PostgreSQL through a proxy of its own so its link can be paused
 * alone. A process killed by a fault is started again at once; one that exits when nobody stopped
 * it is noted (a crash) and started again too. Every incarnation's output is kept in a log file.
 * @module
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, startWorker, type RunningServer } from '../../test/e2e/support/reference-server.js';
import type { SoakOptions } from './options.js';
import { startProxy, type PausableProxy } from './proxy.js';

export interface Slot {
  readonly index: number;
  readonly kind: 'server' | 'worker';
  readonly name: string;
  readonly proxy: PausableProxy;
  /** The running incarnation; `null` while it is down. */
  running: RunningServer | null;
  /** Incarnations started so far. */
  starts: number;
  /** Set while the soak itself stops the process (a fault, the end). */
  stopping: boolean;
}

export interface Crash {
  slot: string;
  code: number | null;
  signal: string | null;
  at: number;
}

export interface Fleet {
  readonly slots: readonly Slot[];
  /** Processes that exited without the soak stopping them. */
  readonly crashes: readonly Crash[];
  /** The base URLs of the servers up now. */
  servers(): string[];
  /** Stops the slot's process with `signal`, waits for its exit, starts it again; resolves once it is up. */
  restart(slot: Slot, signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** SIGTERM to every process; their exit codes by slot name. */
  stop(): Promise<Record<string, number | string | null>>;
  /** SIGKILL to whatever is left (cleanup), and the proxies closed. */
  destroy(): Promise<void>;
}

export function processEnv(options: SoakOptions, apiKeys: string, secretKey: string): Record<string, string> {
  return {
    AGENT_PLATFORM_API_KEYS: apiKeys,
    AGENT_PLATFORM_SECRET_KEY: secretKey,
    AGENT_PLATFORM_RUN_LEASE_SECONDS: String(options.leaseSeconds),
    AGENT_PLATFORM_RUNS_PER_ORG: String(options.runsPerOrg),
    AGENT_PLATFORM_RUNS_MAX: String(options.runsMax),
    AGENT_PLATFORM_RUN_CONCURRENCY: String(options.runConcurrency),
    AGENT_PLATFORM_SHUTDOWN_GRACE_MS: String(options.shutdownGraceMs),
    AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE: 'on',
    AGENT_PLATFORM_SANDBOX: 'process',
    AGENT_PLATFORM_BUILTIN_AGENT: 'on',
    // Every owner has llm_model set: a run reaching the command agent would be a mistake, and fails.
    AGENT_PLATFORM_AGENT_COMMAND: 'echo "the soak expects the built-in agent" >&2; exit 3',
    AGENT_PLATFORM_LOG_FORMAT: 'json',
    AGENT_PLATFORM_METRICS: 'off',
  };
}

const exited = (running: RunningServer) =>
  new Promise<void>((resolve) => {
    if (running.child.exitCode !== null || running.child.signalCode !== null) resolve();
    else running.child.once('exit', () => resolve());
  });

export async function startFleet(options: SoakOptions, env: Record<string, string>, dbPort: number, logDir: string): Promise<Fleet> {
  const slots: Slot[] = [];
  const crashes: Crash[] = [];
  let destroyed = false;
  /** Every process started and not yet exited, restarts included: `destroy` ends them all, even one still starting. */
  const children = new Set<RunningServer>();
  /** Starts under way, which `destroy` waits for (each is killed as it comes up). */
  const starting = new Set<Promise<unknown>>();
  for (let index = 0; index < options.servers + options.workers; index++) {
    const kind = index < options.servers ? 'server' : 'worker';
    const proxy = await startProxy({ host: '127.0.0.1', port: dbPort });
    slots.push({ index, kind, name: `${kind}-${index}`, proxy, running: null, starts: 0, stopping: false });
  }

  const saveLog = (slot: Slot, running: RunningServer) =>
    writeFileSync(path.join(logDir, `${slot.name}.${slot.starts}.log`), running.output.join(''), { flag: 'w' });

  /** Starts the slot's process, trying again while it cannot start (the database down, say). */
  const launch = async (slot: Slot): Promise<void> => {
    const slotEnv = { ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${slot.proxy.port}/postgres` };
    for (let attempt = 1; ; attempt++) {
      slot.starts++;
      try {
        const start = slot.kind === 'server' ? startServer('examples/server', slotEnv) : startWorker('examples/server', slotEnv);
        starting.add(start);
        const running = await start.finally(() => starting.delete(start));
        children.add(running);
        running.child.once('exit', () => children.delete(running));
        if (destroyed) {
          // Started while the fleet was being taken down (a restart that outlasted the load).
          running.child.kill('SIGKILL');
          return;
        }
        slot.running = running;
        slot.stopping = false;
        running.child.once('exit', (code, signal) => {
          saveLog(slot, running);
          if (slot.running === running) slot.running = null;
          if (slot.stopping || destroyed) return;
          crashes.push({ slot: slot.name, code, signal, at: Date.now() });
          options.log(`  ${slot.name} exited on its own (code ${code}, signal ${signal}): starting it again`);
          void launch(slot).catch((error) => options.log(`  ${slot.name} could not be started again: ${(error as Error).message}`));
        });
        return;
      } catch (error) {
        if (destroyed) return;
        if (attempt >= 30) throw error;
        options.log(`  ${slot.name} did not start (attempt ${attempt}): ${(error as Error).message.split('\n')[0]}; trying again`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  // The first process migrates the database; the others then start together.
  await launch(slots[0]!);
  await Promise.all(slots.slice(1).map(launch));

  return {
    slots,
    crashes,
    servers: () => slots.filter((slot) => slot.kind === 'server' && slot.running).map((slot) => slot.running!.baseUrl),
    async restart(slot, signal) {
      const running = slot.running;
      if (!running) return;
      slot.stopping = true;
      running.child.kill(signal);
      await exited(running);
      slot.running = null;
      await launch(slot);
    },
    async stop() {
      const codes: Record<string, number | string | null> = {};
      await Promise.all(
        slots.map(async (slot) => {
          const running = slot.running;
          if (!running) return;
          slot.stopping = true;
          running.child.kill('SIGTERM');
          await exited(running);
          codes[slot.name] = running.child.exitCode ?? running.child.signalCode;
        }),
      );
      return codes;
    },
    async destroy() {
      destroyed = true;
      for (const slot of slots) slot.stopping = true;
      // A start under way is killed as it comes up (see launch).
      await Promise.allSettled([...starting]);
      const left = [...children];
      for (const running of left) if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
      await Promise.all(left.map(exited));
      await Promise.all(slots.map((slot) => slot.proxy.close()));
    },
  };
}
