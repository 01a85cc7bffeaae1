/**
 * The faults, injected while the load runs:
 * - every `killEvery` seconds (±30 %), a random process is stopped — SIGKILL, or SIGTERM for a
 *   share of them — and started again at once;
 * - PostgreSQL restarted `pgRestarts` times (a fast shutdown, down `pgDownSeconds`, started);
 * - the proxy paused `pauses` times for `pauseSeconds` (longer than the lease): alternately one
 *   process's link (a partition: the others take its runs over once their leases lapse) and
 *   everyone's.
 * The restarts and pauses are spread over the middle of the load's expected length.
 * @module
 */
import type { SoakDatabase } from './database.js';
import type { Fleet, Slot } from './fleet.js';
import type { SoakOptions } from './options.js';

export interface FaultRecord {
  kind: 'sigkill' | 'sigterm' | 'pg-restart' | 'pause-one' | 'pause-all';
  target: string;
  /** Seconds since the load began. */
  at: number;
  /** How long the fault took (a restart: until the process or database was back). */
  ms: number;
}

export interface Faults {
  readonly records: readonly FaultRecord[];
  counts(): Record<FaultRecord['kind'], number>;
  /** Stops injecting, and resolves once a fault under way has ended (its process back, its pause released). */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startFaults(options: SoakOptions, fleet: Fleet, database: SoakDatabase, rnd: () => number, expectedLoadMs: number): Faults {
  const records: FaultRecord[] = [];
  const began = Date.now();
  let stopped = false;
  const wake = new Set<() => void>();
  /** Sleeps `ms` unless the faults stop first; whether it slept through. */
  const nap = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake.delete(done);
        resolve(!stopped);
      };
      const timer = setTimeout(done, ms);
      wake.add(done);
    });

  const record = async (kind: FaultRecord['kind'], target: string, work: () => Promise<void>) => {
    const at = (Date.now() - began) / 1000;
    const start = Date.now();
    options.log(`  fault at ${at.toFixed(1)} s: ${kind} ${target}`);
    try {
      await work();
    } catch (error) {
      options.log(`  fault ${kind} ${target} went wrong: ${(error as Error).message}`);
    }
    records.push({ kind, target, at, ms: Date.now() - start });
  };
  const pick = (): Slot | undefined => {
    const up = fleet.slots.filter((slot) => slot.running);
    return up[Math.floor(rnd() * up.length)];
  };

  // A kill does not wait for the last one's process to be back: on a loaded machine a restart
  // (during a PostgreSQL restart, say) can outlast the load, and the faults must still happen.
  // Bounded runs spread their kills over the load; unbounded ones kill every `killEvery` (±30 %).
  // The last server up is never the one killed, so deliveries always have somewhere to go.
  const restarts = new Set<Promise<void>>();
  const killable = (): Slot | undefined => {
    const up = fleet.slots.filter((slot) => slot.running && !slot.stopping);
    const serversUp = up.filter((slot) => slot.kind === 'server').length;
    const candidates = up.filter((slot) => slot.kind !== 'server' || serversUp > 1);
    return candidates[Math.floor(rnd() * candidates.length)];
  };
  const kills = (async () => {
    if (options.killEvery <= 0) return;
    const spacing = options.maxKills > 0 ? Math.min(options.killEvery * 1000, (expectedLoadMs * 0.8) / options.maxKills) : options.killEvery * 1000;
    for (let n = 0; options.maxKills === 0 || n < options.maxKills; n++) {
      if (!(await nap(spacing * (0.7 + 0.6 * rnd())))) return;
      const slot = killable();
      if (!slot) continue;
      const signal = rnd() < options.termShare ? 'SIGTERM' : 'SIGKILL';
      const restart = record(signal === 'SIGKILL' ? 'sigkill' : 'sigterm', slot.name, () => fleet.restart(slot, signal));
      restarts.add(restart);
      void restart.finally(() => restarts.delete(restart));
    }
  })();

  const timed = (async () => {
    const kinds: ('pg' | 'pause')[] = [];
    for (let i = 0; i < Math.max(options.pgRestarts, options.pauses); i++) {
      if (i < options.pgRestarts) kinds.push('pg');
      if (i < options.pauses) kinds.push('pause');
    }
    let pauses = 0;
    for (const [i, kind] of kinds.entries()) {
      const due = began + expectedLoadMs * (0.2 + (0.6 * (i + 1)) / (kinds.length + 1));
      if (!(await nap(Math.max(0, due - Date.now())))) return;
      if (kind === 'pg') {
        await record('pg-restart', 'postgresql', () => database.restart(options.pgDownSeconds * 1000));
        continue;
      }
      const all = pauses++ % 2 === 1;
      const slots = all ? fleet.slots : [pick()].filter((slot): slot is Slot => slot !== undefined);
      await record(all ? 'pause-all' : 'pause-one', all ? 'every process' : (slots[0]?.name ?? 'none'), async () => {
        for (const slot of slots) slot.proxy.pause();
        await sleep(options.pauseSeconds * 1000);
        for (const slot of slots) slot.proxy.resume();
      });
    }
  })();

  return {
    records,
    counts: () => {
      const counts = { sigkill: 0, sigterm: 0, 'pg-restart': 0, 'pause-one': 0, 'pause-all': 0 };
      for (const { kind } of records) counts[kind]++;
      return counts;
    },
    async stop() {
      stopped = true;
      for (const done of [...wake]) done();
      await Promise.all([kills, timed]);
      await Promise.all([...restarts]);
    },
  };
}
