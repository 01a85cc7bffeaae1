/**
 * The soak's checks, once everything has settled: from the database (`state.ts`), the LEDGER of
 * the commands the runs' tool calls really executed (`ledger.ts`), what the senders were answered
 * (`load.ts`) and what the subscribers' endpoint received. Each check counts its violations and
 * keeps a few examples.
 *
 * The limits are checked twice: on the LEDGER's live executions (a command from its `start` line
 * to its `end` line, or to the moment its shell was seen gone), which is what really ran at once,
 * leases or not; and on the stretches the runs were RUNNING, from the transitions the database
 * applied (`state.ts`: why not the runs' own `started_at` and `completed_at`). A violation of a limit is one episode: a stretch of time during which more were live than
 * allowed (its peak is in the examples).
 * @module
 */
import type { Crash } from './fleet.js';
import type { Execution } from './ledger.js';
import type { SentDelivery } from './load.js';
import type { SoakOptions } from './options.js';
import type { DatabaseState, RunRow } from './state.js';
import type { ReceivedEvent } from './tenants.js';

export interface CheckResult {
  name: string;
  violations: number;
  /** A few of them, for whoever reads a failure. */
  examples: string[];
}

export interface CheckInput {
  options: SoakOptions;
  state: DatabaseState;
  executions: readonly Execution[];
  deliveries: readonly SentDelivery[];
  received: ReadonlyMap<string, ReceivedEvent>;
  crashes: readonly Crash[];
  exitCodes: Record<string, number | string | null>;
  /** When the checks run (an execution still open is taken as live until then). */
  now: number;
}

export const CHECK_NAMES = {
  notStored: 'deliveries: acknowledged but not stored',
  storedTwice: 'deliveries: stored more than once (dedup)',
  answeredNewTwice: 'deliveries: answered as new more than once',
  runMissing: 'runs: created in an answer but not stored',
  runTwice: 'runs: more than one for a delivery and automation',
  notFinal: 'runs: PENDING or RUNNING at the end',
  finalOnce: 'runs: not made final exactly once (transitions)',
  finalEvents: 'runs: not exactly one run.completed/failed/cancelled message',
  notReceived: 'outbound: a final run message never delivered',
  ledgerPerOrg: 'limits (ledger): live executions over the per-org limit',
  ledgerGlobal: 'limits (ledger): live executions over the global limit',
  runsPerOrg: 'limits (runs): running runs over the per-org limit',
  runsGlobal: 'limits (runs): running runs over the global limit',
  ledgerKey: 'flow control (ledger): two live executions of a concurrency key',
  runsKey: 'flow control (runs): two running runs of a concurrency key',
  toolTwice: 'tool calls: executed more than once',
  completedUnexecuted: 'tool calls: COMPLETED run that never executed its tool call',
  unknownRun: 'ledger: execution of a run not in the database',
  crashes: 'processes: exited without being stopped',
  unclean: 'processes: did not stop cleanly (SIGTERM at the end)',
} as const;

/** The checks that depend on work under way (fencing a dead attempt's commands; resuming a run from its stored events). */
export const CHECKS_UNDER_WORK = [CHECK_NAMES.ledgerPerOrg, CHECK_NAMES.ledgerGlobal, CHECK_NAMES.toolTwice] as const;

const FINAL_EVENT: Record<string, string> = { COMPLETED: 'run.completed', FAILED: 'run.failed', CANCELLED: 'run.cancelled' };
const EXAMPLES = 5;

class Tally {
  readonly results: CheckResult[] = [];
  add(name: string, violations: string[]): void {
    this.results.push({ name, violations: violations.length, examples: violations.slice(0, EXAMPLES) });
  }
}

interface Interval {
  start: number;
  end: number;
  label: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** The time of day, to the millisecond. */
const clock = (ms: number) => iso(ms).slice(11, 23);
const span = (interval: { start: number; end: number }) => `${clock(interval.start)}–${clock(interval.end)}`;

/**
 * The stretches during which more than `limit` intervals were live at once, each described by its
 * peak. An interval ending at the instant another starts is not live with it.
 */
export function overLimit(intervals: readonly Interval[], limit: number): string[] {
  const edges: [at: number, delta: 1 | -1, interval: Interval][] = [];
  for (const interval of intervals) {
    // Live for no time at all: never live with another.
    if (!(interval.end > interval.start)) continue;
    edges.push([interval.start, 1, interval], [interval.end, -1, interval]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const live = new Set<Interval>();
  const episodes: string[] = [];
  let peak = 0;
  let peakText = '';
  for (const [at, delta, interval] of edges) {
    if (delta === 1) live.add(interval);
    else live.delete(interval);
    if (live.size > limit && live.size > peak) {
      peak = live.size;
      peakText = `${live.size} live at ${clock(at)} (limit ${limit}): ${[...live].map((one) => `${one.label} ${span(one)}`).join(', ')}`;
    }
    if (live.size <= limit && peak > 0) {
      episodes.push(peakText);
      peak = 0;
    }
  }
  if (peak > 0) episodes.push(peakText);
  return episodes;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

function checkDeliveries(tally: Tally, input: CheckInput): void {
  const stored = groupBy(
    input.state.deliveries.filter((row) => row.status !== 'duplicate'),
    (row) => row.providerDeliveryId,
  );
  tally.add(
    CHECK_NAMES.notStored,
    input.deliveries.filter((sent) => sent.acknowledged && !stored.has(sent.id)).map((sent) => `${sent.id} (${sent.org}, ${sent.type})`),
  );
  tally.add(
    CHECK_NAMES.storedTwice,
    [...stored].filter(([, rows]) => rows.length > 1).map(([id, rows]) => `${id}: ${rows.map((row) => row.id).join(', ')}`),
  );
  tally.add(
    CHECK_NAMES.answeredNewTwice,
    input.deliveries.filter((sent) => sent.stored.length > 1).map((sent) => `${sent.id}: ${sent.stored.map((one) => one.deliveryId).join(', ')}`),
  );
  const runIds = new Set(input.state.runs.map((run) => run.id));
  const answered = input.deliveries.flatMap((sent) => sent.stored.flatMap((one) => one.runs.map((run) => `${run} (${sent.id})`)));
  const storedRuns = input.state.deliveries.flatMap((row) => row.runsCreated.map((run) => `${run} (delivery ${row.id})`));
  tally.add(
    CHECK_NAMES.runMissing,
    [...answered, ...storedRuns].filter((entry) => !runIds.has(entry.split(' ')[0]!)),
  );
  const perDelivery = groupBy(input.state.runs, (run) => (run.deliveryId ? `${run.deliveryId} ${run.automationId}` : null));
  tally.add(
    CHECK_NAMES.runTwice,
    [...perDelivery].filter(([, runs]) => runs.length > 1).map(([key, runs]) => `${key}: ${runs.map((run) => run.id).join(', ')}`),
  );
}

function checkRuns(tally: Tally, input: CheckInput): void {
  const { runs, messages } = input.state;
  tally.add(
    CHECK_NAMES.notFinal,
    runs.filter((run) => run.status === 'PENDING' || run.status === 'RUNNING').map((run) => `${run.id} ${run.status} (attempt ${run.attempt})`),
  );
  const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'];
  tally.add(
    CHECK_NAMES.finalOnce,
    runs
      .filter((run) => FINAL.includes(run.status))
      .filter(
        (run) =>
          run.transitions.filter((transition) => FINAL.includes(transition.to)).length !== 1 ||
          run.transitions.some((transition) => transition.from !== null && FINAL.includes(transition.from)),
      )
      .map((run) => `${run.id} ${run.status}: ${run.transitions.map((transition) => `${transition.from ?? 'new'}→${transition.to}`).join(' ')}`),
  );
  const finals = groupBy(
    messages.filter((message) => Object.values(FINAL_EVENT).includes(message.eventType)),
    (message) => message.runId,
  );
  const wrong: string[] = [];
  for (const run of runs) {
    const sent = finals.get(run.id) ?? [];
    const expected = FINAL_EVENT[run.status];
    if (expected === undefined) {
      // SKIPPED (and, reported above, PENDING and RUNNING) runs have none.
      if (sent.length > 0) wrong.push(`${run.id} ${run.status}: ${sent.map((message) => message.eventType).join(', ')}`);
    } else if (sent.length !== 1 || sent[0]!.eventType !== expected) {
      wrong.push(`${run.id} ${run.status}: ${sent.length === 0 ? 'none' : sent.map((message) => message.eventType).join(', ')}`);
    }
  }
  tally.add(CHECK_NAMES.finalEvents, wrong);
  const receivedIds = new Set(input.received.keys());
  tally.add(
    CHECK_NAMES.notReceived,
    [...finals.values()]
      .flat()
      .filter((message) => message.status !== 'delivered' || !receivedIds.has(message.id))
      .map((message) => `${message.id} ${message.eventType} ${message.runId} (${message.status})`),
  );
}

interface Live {
  run: RunRow;
  interval: Interval;
}

/** The ledger's executions and the runs' claim-to-end times, as intervals. */
function liveIntervals(input: CheckInput, runsById: Map<string, RunRow>): { executions: Live[]; runs: Live[] } {
  const executions = input.executions
    .filter((execution) => runsById.has(execution.runId))
    .map((execution) => ({
      run: runsById.get(execution.runId)!,
      interval: { start: execution.start, end: execution.end ?? input.now, label: `${execution.runId}/${execution.toolCallId}` },
    }));
  // Each stretch a run was RUNNING under one owner, as the database applied its transitions.
  const runs: Live[] = [];
  for (const run of input.state.runs) {
    let since: number | null = null;
    const close = (at: number) => {
      if (since !== null) runs.push({ run, interval: { start: since, end: at, label: `${run.id} (${run.status}, attempt ${run.attempt})` } });
      since = null;
    };
    for (const transition of run.transitions) {
      if (transition.from === 'RUNNING') close(transition.at);
      if (transition.to === 'RUNNING') since = transition.at;
    }
    close(input.now);
  }
  return { executions, runs };
}

const byOrg = (run: RunRow) => run.orgId;
const byKey = (run: RunRow) => (run.concurrencyKey === null ? null : `${run.automationId} key ${run.concurrencyKey}`);

/** The most live at once. */
function peak(intervals: readonly Interval[]): number {
  const edges = intervals.filter((one) => one.end > one.start).flatMap((one) => [[one.start, 1] as const, [one.end, -1] as const]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let live = 0;
  let most = 0;
  for (const [, delta] of edges) {
    live += delta;
    most = Math.max(most, live);
  }
  return most;
}

const groupPeak = (items: readonly Live[], key: (run: RunRow) => string | null) =>
  Math.max(0, ...[...groupBy(items, (item) => key(item.run)).values()].map((members) => peak(members.map((member) => member.interval))));

export interface Peaks {
  ledger: { global: number; perOrg: number; perKey: number };
  runs: { global: number; perOrg: number; perKey: number };
}

/** The most live at once overall, in one org and for one concurrency key: whether the limits were reached at all. */
export function concurrencyPeaks(input: CheckInput): Peaks {
  const { executions, runs } = liveIntervals(input, new Map(input.state.runs.map((run) => [run.id, run])));
  const of = (items: Live[]) => ({
    global: peak(items.map((item) => item.interval)),
    perOrg: groupPeak(items, byOrg),
    perKey: groupPeak(items, byKey),
  });
  return { ledger: of(executions), runs: of(runs) };
}

function checkLimits(tally: Tally, input: CheckInput, runsById: Map<string, RunRow>): void {
  const { options } = input;
  const { executions, runs } = liveIntervals(input, runsById);
  const perGroup = (items: Live[], key: (run: RunRow) => string | null, limit: number) =>
    [...groupBy(items, (item) => key(item.run))].flatMap(([group, members]) =>
      overLimit(
        members.map((member) => member.interval),
        limit,
      ).map((episode) => `${group}: ${episode}`),
    );
  tally.add(CHECK_NAMES.ledgerPerOrg, perGroup(executions, byOrg, options.runsPerOrg));
  tally.add(
    CHECK_NAMES.ledgerGlobal,
    overLimit(
      executions.map((one) => one.interval),
      options.runsMax,
    ),
  );
  tally.add(CHECK_NAMES.runsPerOrg, perGroup(runs, byOrg, options.runsPerOrg));
  tally.add(
    CHECK_NAMES.runsGlobal,
    overLimit(
      runs.map((one) => one.interval),
      options.runsMax,
    ),
  );
  tally.add(CHECK_NAMES.ledgerKey, perGroup(executions, byKey, 1));
  tally.add(CHECK_NAMES.runsKey, perGroup(runs, byKey, 1));
}

function checkToolCalls(tally: Tally, input: CheckInput, runsById: Map<string, RunRow>): void {
  const byCall = groupBy(input.executions, (execution) => execution.toolCallId);
  tally.add(
    CHECK_NAMES.toolTwice,
    [...byCall]
      .filter(([, executions]) => executions.length > 1)
      .map(
        ([id, executions]) =>
          `${id} of ${executions[0]!.runId}: ${executions.length} times, at ${executions.map((one) => `${iso(one.start)}–${one.end === null ? 'open' : `${iso(one.end)} (${one.endedBy})`}`).join(', ')}`,
      ),
  );
  const executedRuns = new Set(input.executions.map((execution) => execution.runId));
  tally.add(
    CHECK_NAMES.completedUnexecuted,
    input.state.runs.filter((run) => run.status === 'COMPLETED' && !executedRuns.has(run.id)).map((run) => run.id),
  );
  tally.add(
    CHECK_NAMES.unknownRun,
    input.executions.filter((execution) => !runsById.has(execution.runId)).map((execution) => `${execution.runId}/${execution.toolCallId}`),
  );
}

export function runChecks(input: CheckInput): CheckResult[] {
  const tally = new Tally();
  const runsById = new Map(input.state.runs.map((run) => [run.id, run]));
  checkDeliveries(tally, input);
  checkRuns(tally, input);
  checkLimits(tally, input, runsById);
  checkToolCalls(tally, input, runsById);
  tally.add(
    CHECK_NAMES.crashes,
    input.crashes.map((crash) => `${crash.slot} at ${iso(crash.at)}: code ${crash.code}, signal ${crash.signal}`),
  );
  tally.add(
    CHECK_NAMES.unclean,
    Object.entries(input.exitCodes)
      .filter(([, code]) => code !== 0)
      .map(([slot, code]) => `${slot}: ${code}`),
  );
  return tally.results;
}
