/**
 * One soak, start to end: its own PostgreSQL cluster, a proxy per process, the processes, the
 * scripted model, the subscribers' endpoint, the orgs; the load with the faults; the wait for
 * everything to settle; the processes stopped; the checks. Everything it started is stopped and
 * removed at the end, whatever happened (the directory with the ledger and the process logs is kept
 * with `keep`).
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { concurrencyPeaks, runChecks, type CheckInput } from './checks.js';
import { startDatabase, type SoakDatabase } from './database.js';
import { startFaults, type Faults } from './faults.js';
import { processEnv, startFleet, type Fleet } from './fleet.js';
import { watchLedger, type LedgerWatch } from './ledger.js';
import { startLoad, type Load } from './load.js';
import { startModel, type SoakModel } from './model.js';
import { random, type SoakOptions } from './options.js';
import { buildReport, type SoakReport } from './report.js';
import { installAudit, liveCounts, readState } from './state.js';
import { orgKeys, registerOrg, seededKeys, startReceiver, type Org, type Receiver } from './tenants.js';

const SECRET_KEY = Buffer.alloc(32, 42).toString('base64');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the orgs a few at a time. */
async function registerAll(baseUrl: string, options: SoakOptions, llmUrl: string, receiverUrl: string): Promise<Org[]> {
  const keys = orgKeys(options.orgs);
  const orgs: Org[] = [];
  for (let i = 0; i < keys.length; i += 4) orgs.push(...(await Promise.all(keys.slice(i, i + 4).map((org) => registerOrg(baseUrl, org, llmUrl, receiverUrl)))));
  return orgs;
}

/** Waits (at most `settleSeconds`) until no run is PENDING or RUNNING, no message is pending and no command runs, twice in a row. */
async function settle(options: SoakOptions, database: SoakDatabase, ledger: LedgerWatch): Promise<boolean> {
  const deadline = Date.now() + options.settleSeconds * 1000;
  let quiet = 0;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const live = await liveCounts(database.pool);
      const open = ledger.open();
      const now = `${live.pending} pending, ${live.running} running, ${live.messages} messages to send, ${open} commands running`;
      if (now !== last) options.log(`  settling: ${now}`);
      last = now;
      quiet = live.pending + live.running + live.messages + open === 0 ? quiet + 1 : 0;
      if (quiet >= 2) return true;
    } catch (error) {
      options.log(`  settling: the database did not answer (${(error as Error).message})`);
    }
    await sleep(1000);
  }
  return false;
}

/** A line every 10 s while the load runs. */
function progress(options: SoakOptions, database: SoakDatabase, load: Load, ledger: LedgerWatch, faults: Faults): () => void {
  const began = Date.now();
  const timer = setInterval(() => {
    void liveCounts(database.pool)
      .then((live) => `${live.pending} pending, ${live.running} running`)
      .catch(() => 'database unreachable')
      .then((runs) => {
        const acknowledged = load.deliveries.filter((delivery) => delivery.acknowledged).length;
        const faultCount = faults.records.length;
        options.log(
          `  ${Math.round((Date.now() - began) / 1000)} s: ${load.sent()} sent, ${acknowledged} acknowledged; runs ${runs}; ${ledger.executions.length} executions; ${faultCount} faults`,
        );
      });
  }, 10_000);
  return () => clearInterval(timer);
}

/** The cleanup of each soak under way, for {@link abortSoaks}. */
const underWay = new Set<() => Promise<void>>();

/** Stops every soak under way and removes what it started (the command's Ctrl-C). */
export async function abortSoaks(): Promise<void> {
  await Promise.all([...underWay].map((cleanUp) => cleanUp()));
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const began = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-platform-soak-'));
  const logDir = path.join(dir, 'logs');
  mkdirSync(logDir);
  const ledgerFile = path.join(dir, 'ledger');
  writeFileSync(ledgerFile, '');
  let database: SoakDatabase | undefined;
  let model: SoakModel | undefined;
  let receiver: Receiver | undefined;
  let ledger: LedgerWatch | undefined;
  let fleet: Fleet | undefined;
  let faults: Faults | undefined;
  const cleanUp = async () => {
    underWay.delete(cleanUp);
    await faults?.stop().catch(() => {});
    await fleet?.destroy().catch(() => {});
    await ledger?.stop().catch(() => {});
    await model?.close().catch(() => {});
    await receiver?.close().catch(() => {});
    await database?.close().catch(() => {});
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  };
  underWay.add(cleanUp);
  try {
    options.log(`soak: ${options.deliveries} deliveries over ${options.orgs} orgs at ${options.rate}/s; directory ${dir}`);
    database = await startDatabase();
    model = await startModel(ledgerFile, options);
    receiver = await startReceiver();
    ledger = await watchLedger(ledgerFile);
    const keys = orgKeys(options.orgs);
    fleet = await startFleet(options, processEnv(options, seededKeys(keys), SECRET_KEY), database.cluster.port, logDir);
    options.log(`  ${fleet.slots.map((slot) => slot.name).join(', ')} up on PostgreSQL port ${database.cluster.port}, each through a proxy of its own`);
    await installAudit(database.pool);
    const orgs = await registerAll(fleet.servers()[0]!, options, model.llm.url, receiver.url);
    options.log(`  ${orgs.length} orgs registered`);

    const rnd = random(options.seed);
    const loadBegan = Date.now();
    const load = startLoad(options, orgs, fleet, rnd);
    faults = startFaults(options, fleet, database, random(options.seed + 1), (options.deliveries / options.rate) * 1000);
    const stopProgress = progress(options, database, load, ledger, faults);
    try {
      await load.done;
    } finally {
      await faults.stop();
      stopProgress();
    }
    const loadSeconds = (Date.now() - loadBegan) / 1000;
    options.log(`  load done in ${loadSeconds.toFixed(0)} s; faults stopped; settling (at most ${options.settleSeconds} s)`);

    const settleBegan = Date.now();
    const settled = await settle(options, database, ledger);
    const settleSeconds = (Date.now() - settleBegan) / 1000;
    options.log(`  ${settled ? 'settled' : 'NOT settled'} after ${settleSeconds.toFixed(0)} s; stopping the processes`);
    const exitCodes = await fleet.stop();
    await ledger.stop();
    const state = await readState(database.pool);
    const checkInput: CheckInput = {
      options,
      state,
      executions: ledger.executions,
      deliveries: load.deliveries,
      received: receiver.received,
      crashes: fleet.crashes,
      exitCodes,
      now: Date.now(),
    };
    const checks = runChecks(checkInput);
    // For whoever digs into a violation: what the checks saw.
    if (options.keep) writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ ...state, executions: ledger.executions, deliveries: load.deliveries }));
    return buildReport({
      options,
      seconds: { total: (Date.now() - began) / 1000, load: loadSeconds, settle: settleSeconds },
      settled,
      load,
      state,
      executions: ledger.executions,
      modelCalls: model.calls,
      faults,
      received: receiver.received,
      checks,
      peaks: concurrencyPeaks(checkInput),
      dir: options.keep ? dir : null,
    });
  } finally {
    await cleanUp();
  }
}
