/**
 * The soak's knobs, their defaults (the full run) and the command-line parser: `--name value` for
 * each option, names in kebab case (`--kill-every 5`).
 * @module
 */

export interface SoakOptions {
  /** Distinct deliveries sent (redeliveries and retries come on top). */
  deliveries: number;
  /** Orgs, each with its own key, owner settings, webhook source, automations and subscription. */
  orgs: number;
  /** Reference-server processes (API + executor). */
  servers: number;
  /** Worker-only processes (`src/worker.ts`). */
  workers: number;
  /** Deliveries sent per second. */
  rate: number;
  /** Requests in flight at most. */
  senders: number;
  /** Share of deliveries sent again later with the same delivery id (a provider's redelivery). */
  redeliveryShare: number;
  /** Share of `job.run` deliveries whose run the model fails (an HTTP 401 at its second call). */
  failShare: number;
  /** How long each tool call's command sleeps between its ledger start and end lines. */
  execSeconds: number;
  /**
   * Share of `job.run` and `job.keyed` deliveries whose commands sleep `longExecSeconds` instead:
   * longer than the lease, so an attempt cut off mid-command (killed, partitioned) is still
   * executing when another process may take the run over.
   */
  longShare: number;
  longExecSeconds: number;
  /** Share of deliveries whose run makes two tool calls (one after the other) instead of one. */
  twoStepShare: number;
  /** `AGENT_PLATFORM_RUN_LEASE_SECONDS`. */
  leaseSeconds: number;
  /** `AGENT_PLATFORM_RUNS_PER_ORG`. */
  runsPerOrg: number;
  /** `AGENT_PLATFORM_RUNS_MAX`. */
  runsMax: number;
  /** `AGENT_PLATFORM_RUN_CONCURRENCY` (per process). */
  runConcurrency: number;
  /** `AGENT_PLATFORM_SHUTDOWN_GRACE_MS`. */
  shutdownGraceMs: number;
  /** Seconds between process faults (a random process killed and restarted); 0: none. */
  killEvery: number;
  /** At most this many process faults (0: no bound but the load's length). */
  maxKills: number;
  /** Share of process faults that are a SIGTERM (graceful stop) rather than a SIGKILL. */
  termShare: number;
  /** PostgreSQL restarts (stop, down for `pgDownSeconds`, start) during the load. */
  pgRestarts: number;
  pgDownSeconds: number;
  /**
   * Proxy pauses during the load: the first (and every other) holds one process's database
   * traffic (a partition of that process), the second (and every other) everyone's.
   */
  pauses: number;
  pauseSeconds: number;
  /** Bound on the wait for everything to settle once the load and the faults have stopped. */
  settleSeconds: number;
  /** Seed of the load's random choices (orgs, event kinds, redeliveries, fault targets). */
  seed: number;
  /** Keep the soak's directory (ledger, process logs) instead of removing it. */
  keep: boolean;
  /** Progress lines go here (the CLI prints them; the test keeps them for a failure). */
  log: (line: string) => void;
}

export const DEFAULT_OPTIONS: SoakOptions = {
  deliveries: 2000,
  orgs: 20,
  servers: 2,
  workers: 1,
  rate: 6,
  senders: 16,
  redeliveryShare: 0.1,
  failShare: 0.05,
  execSeconds: 1,
  longShare: 0.1,
  longExecSeconds: 4,
  twoStepShare: 0.2,
  leaseSeconds: 3,
  runsPerOrg: 2,
  runsMax: 6,
  runConcurrency: 4,
  shutdownGraceMs: 2000,
  killEvery: 8,
  maxKills: 0,
  termShare: 0.25,
  pgRestarts: 1,
  pgDownSeconds: 2,
  pauses: 2,
  pauseSeconds: 5,
  settleSeconds: 600,
  seed: 1,
  keep: false,
  log: (line) => console.log(line),
};

/** The CI-sized run (`test/e2e/soak.test.ts`): about a minute. */
export const CI_OPTIONS: Partial<SoakOptions> = {
  deliveries: 200,
  orgs: 10,
  rate: 7,
  killEvery: 10,
  maxKills: 3,
  termShare: 0,
  pgRestarts: 1,
  pauses: 1,
  settleSeconds: 120,
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const USAGE = `usage: soak.ts [--ci] [--option value ...]
  --ci: the CI-sized run's defaults (${Object.entries(CI_OPTIONS)
    .map(([name, value]) => `${kebab(name)} ${value}`)
    .join(', ')}); options given after it win
options (default):
${Object.entries(DEFAULT_OPTIONS)
  .filter(([name]) => name !== 'log')
  .map(([name, value]) => `  --${kebab(name)} (${value})`)
  .join('\n')}`;

/** Options from `argv` (without node and the script). Throws with the usage on a bad one. */
export function parseOptions(argv: readonly string[]): SoakOptions {
  const options: SoakOptions = { ...DEFAULT_OPTIONS };
  const byFlag = new Map(Object.keys(DEFAULT_OPTIONS).map((name) => [`--${kebab(name)}`, name as keyof SoakOptions]));
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (flag === '--ci') {
      Object.assign(options, CI_OPTIONS);
      continue;
    }
    if (flag === '--keep') {
      options.keep = true;
      continue;
    }
    const name = byFlag.get(flag);
    const value = Number(argv[i + 1]);
    if (!name || name === 'log' || name === 'keep' || !Number.isFinite(value) || value < 0)
      throw new Error(`bad option ${flag} ${argv[i + 1] ?? ''}\n${USAGE}`);
    (options as unknown as Record<string, number>)[name] = value;
    i++;
  }
  if (options.servers < 1) throw new Error(`--servers must be at least 1 (the deliveries go to servers)\n${USAGE}`);
  if (options.deliveries < 1 || options.orgs < 1 || options.rate <= 0 || options.senders < 1) throw new Error(`nothing to send\n${USAGE}`);
  return options;
}

/** A small seeded generator (mulberry32), so a run's load can be replayed with its seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
