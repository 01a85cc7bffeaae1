/**
 * Durable ingest over HTTP: deliveries per second of signed real GitHub
 * `pull_request.opened` payloads (`@octokit/webhooks-examples`, 21 KB, owner rewritten per org, 200
 * orgs), each with a fresh X-GitHub-Delivery, posted by autocannon in this process to servers that
 * each run in a child process of their own:
 * - `platform-postgres`: the reference server (API only, `AGENT_PLATFORM_EXECUTOR=off`) on
 *   PostgreSQL, 200 orgs × 10 automations, 1% matching (one run per tenth delivery);
 * - `receiver-postgres`: the minimal durable receiver a careful team writes by hand (raw body,
 *   HMAC check, one autocommit INSERT through a 10-connection `pg.Pool`, then 202), which the
 *   platform must beat;
 * - `platform-pglite`: the reference server on embedded PGlite (a fresh data directory), same seed;
 * - `platform-memory`: the reference server on memory storage, same seed;
 * - `bare`: a Fastify route that only parses the JSON.
 *
 *   npx tsx --conditions=agent-platform-source ingest-durable.ts [seconds] [connections] [rounds]
 *
 * Defaults: 10 s measured after a 3 s warm-up, 32 connections, 3 rounds. The servers take turns:
 * each round measures every server once, in the order above. Every measurement starts its server
 * afresh (a new process, warmed up by the 3 s load), but what is stored stays: the PostgreSQL
 * databases and the PGlite data directory are the same ones across rounds and grow from round to
 * round, as a server's would (the seed is written on the first start only; memory storage is seeded
 * on every start and keeps nothing). A CHECKPOINT is taken before each warm-up, so one server's
 * dirty pages are not flushed on the next one's time.
 *
 * After each PostgreSQL measurement (warm-up and measured load, once its server has exited), the
 * deliveries stored are counted and checked against the 2xx answers: stored = acknowledged + those
 * of the requests still unanswered when autocannon stopped (at most one per connection, looked up
 * by delivery id) that the server stored anyway.
 *
 * Prints a line per measurement, then per server: median deliveries/s (min–max over rounds), p99
 * latency, errors and non-2xx answers (both must be 0), the server's CPU per delivery (and, for
 * every PostgreSQL process on this machine together, the database's), and the ratios with their
 * targets: platform-postgres/receiver-postgres >= 1.0, platform-pglite >= 600/s,
 * platform-memory/bare >= 0.75.
 *
 * Environment:
 * - BENCH_SERVERS=platform-postgres,receiver-postgres: only these servers (default all five);
 * - BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres): the server on which
 *   throwaway databases are created, and dropped (WITH (FORCE)) at the end;
 * - BENCH_CPU_PROFILE=<dir>: the servers run with --cpu-prof into <dir>;
 * - BENCH_PG_STATS=1: the top statements by total time in each PostgreSQL database after the run,
 *   from pg_stat_statements (only when the server preloads it: shared_preload_libraries);
 * - BENCH_NODE_FLAGS: more flags for the servers' Node.js.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { signedPullRequestBodies } from './support/github-ingest-setup.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 32);
const rounds = Number(process.argv[4] ?? 3);
const WARM_UP_SECONDS = 3;
const ORGS = 200;
const INGEST_PATH = '/api/automation/v1/events/github';
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const SERVERS = ['platform-postgres', 'receiver-postgres', 'platform-pglite', 'platform-memory', 'bare'] as const;
type ServerName = (typeof SERVERS)[number];
const selected = (process.env.BENCH_SERVERS?.split(',')
  .map((name) => name.trim())
  .filter(Boolean) ?? [...SERVERS]) as ServerName[];
for (const name of selected) if (!SERVERS.includes(name)) throw new Error(`BENCH_SERVERS: unknown server "${name}" (one of ${SERVERS.join(', ')})`);
const servers = SERVERS.filter((name) => selected.includes(name));
if (!(seconds > 0 && connections > 0 && rounds > 0)) throw new Error('usage: ingest-durable.ts [seconds > 0] [connections > 0] [rounds > 0]');

// Strings: autocannon's request body.
const bodies = signedPullRequestBodies(ORGS).map(({ body, signature }) => ({ body: body.toString(), signature }));
const runId = randomBytes(4).toString('hex');

/** Where each PostgreSQL server's deliveries are, and how to count them. */
interface Store {
  name: string;
  url: string;
  count: string;
  /** Of the delivery ids `$1`, how many are stored. */
  countIds: string;
}
const stores: Partial<Record<ServerName, Store>> = {};
const usesPostgres = servers.some((name) => name.endsWith('-postgres'));
let dataDir: string | null = null;
let admin: pg.Client | null = null;
let running: ChildProcess | null = null;

function databaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

let cleaned = false;
async function cleanUp(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  running?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (admin) {
    for (const store of Object.values(stores)) await admin.query(`DROP DATABASE IF EXISTS ${store.name} WITH (FORCE)`);
    await admin.end();
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanUp().finally(() => process.exit(130));
  });
}

async function startServer(name: ServerName, orgs: number): Promise<{ child: ChildProcess; url: string }> {
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (stores[name]) env.DATABASE_URL = stores[name].url;
  if (name === 'platform-pglite' && dataDir) env.AGENT_PLATFORM_DATA_DIR = dataDir;
  const child = fork(path.join(here, 'support/ingest-server.ts'), [name, String(orgs)], {
    execArgv: ['--conditions=agent-platform-source', '--import', 'tsx', ...profile, ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env,
  });
  running = child;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${name} server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** SIGINT: the server finishes what it holds, closes its storage and exits. */
async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
  running = null;
}

/** A process's user + system CPU time in seconds so far (Linux: /proc/<pid>/stat, in clock ticks). */
function cpuSeconds(pid: number, withReapedChildren = false): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12]) + (withReapedChildren ? Number(fields[13]) + Number(fields[14]) : 0)) / 100;
}

/**
 * The CPU time of every PostgreSQL process on this machine (the postmaster's count includes the
 * backends that have exited); `null` when there is none (a server elsewhere).
 */
function postgresCpuSeconds(): number | null {
  let total = 0;
  let found = false;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      total += cpuSeconds(Number(pid), true);
      found = true;
    } catch {
      // The process has gone meanwhile.
    }
  }
  return found ? total : null;
}

let sequence = 0;
async function load(url: string, duration: number) {
  const unanswered = new Set<string>();
  let acknowledged = 0;
  const result = await autocannon({
    url: url + INGEST_PATH,
    method: 'POST',
    connections,
    duration,
    requests: [
      {
        // Called for each request before it is sent; its context lasts until its answer.
        setupRequest(request, context) {
          const one = bodies[sequence % bodies.length]!;
          const id = `bench-${runId}-${++sequence}`;
          (context as { id?: string }).id = id;
          unanswered.add(id);
          return {
            ...request,
            body: one.body,
            headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': id, 'x-hub-signature-256': one.signature },
          };
        },
        onResponse(status, _body, context) {
          unanswered.delete((context as { id?: string }).id ?? '');
          if (status >= 200 && status < 300) acknowledged++;
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    total: result.requests.total,
    acknowledged,
    unanswered: [...unanswered],
  };
}

interface Check {
  stored: number;
  acknowledged: number;
  unanswered: number;
  /** Of the unanswered, how many were stored; `null` when they could not be looked up. */
  unansweredStored: number | null;
  ok: boolean;
}

async function countStored(store: Store): Promise<number> {
  return (await query<{ n: number }>(store.url, store.count))[0]!.n;
}

async function checkStored(store: Store, before: number, acknowledged: number, unanswered: string[]): Promise<Check> {
  const stored = (await countStored(store)) - before;
  let unansweredStored: number | null = null;
  if (unanswered.length === 0) unansweredStored = 0;
  else {
    try {
      unansweredStored = (await query<{ n: number }>(store.url, store.countIds, [unanswered]))[0]!.n;
    } catch (error) {
      console.error(`  could not look the unanswered deliveries up in ${store.name}: ${(error as Error).message}`);
    }
  }
  const ok = unansweredStored === null ? stored >= acknowledged && stored <= acknowledged + unanswered.length : stored === acknowledged + unansweredStored;
  return { stored, acknowledged, unanswered: unanswered.length, unansweredStored, ok };
}

interface Measurement {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpuMicros: number;
  dbCpuMicros: number | null;
  check: Check | null;
}
const results = Object.fromEntries(servers.map((name) => [name, [] as Measurement[]])) as Record<ServerName, Measurement[]>;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const describeCheck = (check: Check) =>
  `stored ${check.stored} = acknowledged ${check.acknowledged} + ${check.unansweredStored ?? '?'} of ${check.unanswered} unanswered at the load's stop: ${check.ok ? 'ok' : 'MISMATCH'}`;

/** Why pg_stat_statements cannot be used (it is not preloaded, say), or `null` when it can. */
async function pgStatsProbe(): Promise<string | null> {
  try {
    for (const store of Object.values(stores)) await query(store.url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await query(Object.values(stores)[0]!.url, 'SELECT count(*) FROM pg_stat_statements');
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Forgets the statements of `store`'s database so far (its migrations and seed). */
async function resetPgStats(store: Store): Promise<void> {
  await query(store.url, 'SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)');
}

async function printPgStats(): Promise<void> {
  for (const [server, store] of Object.entries(stores)) {
    const rows = await query<{ calls: string; total: number; mean: number; rows: string; query: string }>(
      store.url,
      `SELECT calls, total_exec_time AS total, mean_exec_time AS mean, rows, query FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT 8`,
    );
    console.log(`pg_stat_statements, ${server} (${store.name}), top by total time:`);
    for (const row of rows) {
      const text = row.query.replace(/\s+/g, ' ').trim();
      console.log(
        `  ${Math.round(row.total)} ms total, ${row.calls} calls, ${row.mean.toFixed(3)} ms mean, ${row.rows} rows: ${text.length > 150 ? `${text.slice(0, 150)}…` : text}`,
      );
    }
  }
}

try {
  let version = '';
  let pgStatsMissing: string | null = null;
  if (usesPostgres) {
    admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    version = `PostgreSQL ${(await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version.split(' ')[0]}, `;
    if (servers.includes('platform-postgres')) {
      const name = `bench_durable_platform_${runId}`;
      stores['platform-postgres'] = {
        name,
        url: databaseUrl(name),
        count: 'SELECT count(*)::int AS n FROM agent_platform.deliveries',
        countIds: `SELECT count(*)::int AS n FROM agent_platform.deliveries WHERE data->>'provider_delivery_id' = ANY($1)`,
      };
    }
    if (servers.includes('receiver-postgres')) {
      const name = `bench_durable_receiver_${runId}`;
      stores['receiver-postgres'] = {
        name,
        url: databaseUrl(name),
        count: 'SELECT count(*)::int AS n FROM deliveries',
        countIds: 'SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1)',
      };
    }
    for (const store of Object.values(stores)) await admin.query(`CREATE DATABASE ${store.name}`);
    if (process.env.BENCH_PG_STATS === '1') pgStatsMissing = await pgStatsProbe();
  }
  if (servers.includes('platform-pglite')) dataDir = mkdtempSync(path.join(tmpdir(), 'bench-durable-pglite-'));
  console.log(
    `ingest-durable (${version}${ORGS} orgs, ${connections} connections, ${rounds} round(s) of ${WARM_UP_SECONDS} s warm-up + ${seconds} s): ${servers.join(', ')}`,
  );

  const pgStats = process.env.BENCH_PG_STATS === '1' && usesPostgres && pgStatsMissing === null;
  const seeded = new Set<ServerName>();
  for (let round = 1; round <= rounds; round++) {
    for (const name of servers) {
      const store = stores[name];
      // Before its first start a server's table does not exist yet.
      const before = store && seeded.has(name) ? await countStored(store) : 0;
      // Memory storage keeps nothing between starts; the others are seeded once.
      const server = await startServer(name, name === 'bare' || name === 'receiver-postgres' || seeded.has(name) ? 0 : ORGS);
      if (store && pgStats && !seeded.has(name)) await resetPgStats(store);
      if (name !== 'platform-memory') seeded.add(name);
      if (admin) await admin.query('CHECKPOINT');
      const warm = await load(server.url, WARM_UP_SECONDS);
      const cpuBefore = cpuSeconds(server.child.pid!);
      const dbBefore = store ? postgresCpuSeconds() : null;
      const measured = await load(server.url, seconds);
      const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
      const dbAfter = store ? postgresCpuSeconds() : null;
      await stopServer(server.child);
      const check = store ? await checkStored(store, before, warm.acknowledged + measured.acknowledged, [...warm.unanswered, ...measured.unanswered]) : null;
      const result: Measurement = {
        rps: measured.rps,
        p99: measured.p99,
        errors: warm.errors + measured.errors,
        non2xx: warm.non2xx + measured.non2xx,
        cpuMicros: (cpu * 1e6) / measured.total,
        dbCpuMicros: dbBefore !== null && dbAfter !== null ? ((dbAfter - dbBefore) * 1e6) / measured.total : null,
        check,
      };
      results[name].push(result);
      console.log(
        `  round ${round} ${name}: ${Math.round(result.rps)} deliveries/s, p99 ${result.p99} ms, errors ${result.errors}, non-2xx ${result.non2xx}, server CPU ${Math.round(result.cpuMicros)} µs/delivery${result.dbCpuMicros === null ? '' : `, PostgreSQL CPU ${Math.round(result.dbCpuMicros)} µs/delivery`}${check ? `; ${describeCheck(check)}` : ''}`,
      );
    }
  }

  const summary = (name: ServerName) => {
    const measurements = results[name];
    const rps = measurements.map((m) => m.rps);
    const db = measurements.map((m) => m.dbCpuMicros).filter((value) => value !== null);
    const checks = measurements.map((m) => m.check).filter((check) => check !== null);
    return (
      `${name} ${Math.round(median(rps))} deliveries/s (${Math.round(Math.min(...rps))}–${Math.round(Math.max(...rps))}), p99 ${median(measurements.map((m) => m.p99))} ms, ` +
      `errors ${measurements.reduce((sum, m) => sum + m.errors, 0)}, non-2xx ${measurements.reduce((sum, m) => sum + m.non2xx, 0)}, ` +
      `server CPU ${Math.round(median(measurements.map((m) => m.cpuMicros)))} µs/delivery` +
      (db.length ? `, PostgreSQL CPU ${Math.round(median(db))} µs/delivery` : '') +
      (checks.length ? `, acknowledged = stored in ${checks.filter((check) => check.ok).length}/${checks.length} rounds` : '')
    );
  };
  console.log('Medians over rounds (min–max deliveries/s):');
  for (const name of servers) console.log(`  ${summary(name)}`);
  const rate = (name: ServerName) => (results[name]?.length ? median(results[name].map((m) => m.rps)) : null);
  const verdict = (value: number, target: number) => (value >= target ? 'met' : 'MISSED');
  const ratio = (numerator: ServerName, denominator: ServerName, target: number) => {
    const [a, b] = [rate(numerator), rate(denominator)];
    return a === null || b === null
      ? `${numerator}/${denominator} n/a`
      : `${numerator}/${denominator} ${(a / b).toFixed(2)} (target >= ${target.toFixed(2)}: ${verdict(a / b, target)})`;
  };
  const pglite = rate('platform-pglite');
  console.log(
    `Targets: ${ratio('platform-postgres', 'receiver-postgres', 1.0)}; ${pglite === null ? 'platform-pglite n/a' : `platform-pglite ${Math.round(pglite)} deliveries/s (target >= 600: ${verdict(pglite, 600)})`}; ${ratio('platform-memory', 'bare', 0.75)}`,
  );
  if (pgStats) await printPgStats();
  else if (pgStatsMissing) console.log(`BENCH_PG_STATS: pg_stat_statements is not available on this server (${pgStatsMissing})`);
} finally {
  await cleanUp();
}
