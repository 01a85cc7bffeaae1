/**
 * The soak's figures and verdict, as an object (the test asserts on it) and as the summary the
 * command prints.
 * @module
 */
import { CHECKS_UNDER_WORK, type CheckResult, type Peaks } from './checks.js';
import type { Faults, FaultRecord } from './faults.js';
import type { Execution } from './ledger.js';
import type { Load } from './load.js';
import type { SoakModel } from './model.js';
import type { SoakOptions } from './options.js';
import type { DatabaseState } from './state.js';
import type { ReceivedEvent } from './tenants.js';

export interface SoakReport {
  options: Omit<SoakOptions, 'log'>;
  seconds: { total: number; load: number; settle: number };
  settled: boolean;
  deliveries: {
    sent: number;
    requests: number;
    redeliveries: number;
    retries: number;
    acknowledged: number;
    /** Deliveries no request of which was acknowledged. */
    notAcknowledged: number;
    /** Requests answered as duplicates. */
    duplicateAnswers: number;
    /** Requests by answer (status code, or `network`). */
    statuses: Record<string, number>;
    /** Stored in the database (not counting the `duplicate` log entries). */
    stored: number;
  };
  runs: { total: number; byStatus: Record<string, number>; attempts: Record<string, number> };
  executions: { total: number; endedByLedger: number; vanished: number; open: number };
  /** The most live at once (ledger: executions; runs: claim to end), to show the limits were reached. */
  peaks: Peaks;
  model: SoakModel['calls'];
  outbound: { messages: number; byType: Record<string, number>; received: number; receivedMoreThanOnce: number };
  faults: Record<FaultRecord['kind'], number>;
  faultLog: readonly FaultRecord[];
  checks: CheckResult[];
  violations: number;
  /** Where the ledger and process logs are (with `keep`). */
  dir: string | null;
}

export interface ReportInput {
  options: SoakOptions;
  seconds: SoakReport['seconds'];
  settled: boolean;
  load: Load;
  state: DatabaseState;
  executions: readonly Execution[];
  modelCalls: SoakModel['calls'];
  faults: Faults;
  received: ReadonlyMap<string, ReceivedEvent>;
  checks: CheckResult[];
  peaks: Peaks;
  dir: string | null;
}

const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

export function buildReport(input: ReportInput): SoakReport {
  const { load, state } = input;
  const { log: _log, ...options } = input.options;
  const acknowledged = load.deliveries.filter((delivery) => delivery.acknowledged).length;
  return {
    options,
    seconds: input.seconds,
    settled: input.settled,
    deliveries: {
      sent: load.deliveries.length,
      requests: load.counts.requests,
      redeliveries: load.counts.redeliveries,
      retries: load.counts.retries,
      acknowledged,
      notAcknowledged: load.deliveries.length - acknowledged,
      duplicateAnswers: load.deliveries.reduce((sum, delivery) => sum + delivery.duplicates, 0),
      statuses: { ...load.statuses },
      stored: state.deliveries.filter((row) => row.status !== 'duplicate').length,
    },
    runs: {
      total: state.runs.length,
      byStatus: countBy(state.runs, (run) => run.status),
      attempts: countBy(state.runs, (run) => String(run.attempt)),
    },
    executions: {
      total: input.executions.length,
      endedByLedger: input.executions.filter((execution) => execution.endedBy === 'ledger').length,
      vanished: input.executions.filter((execution) => execution.endedBy === 'vanished').length,
      open: input.executions.filter((execution) => execution.end === null).length,
    },
    peaks: input.peaks,
    model: { ...input.modelCalls },
    outbound: {
      messages: state.messages.length,
      byType: countBy(state.messages, (message) => message.eventType),
      received: input.received.size,
      receivedMoreThanOnce: [...input.received.values()].filter((event) => event.times > 1).length,
    },
    faults: input.faults.counts(),
    faultLog: [...input.faults.records],
    checks: input.checks,
    violations: input.checks.reduce((sum, check) => sum + check.violations, 0),
    dir: input.dir,
  };
}

const list = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');

export function formatReport(report: SoakReport): string {
  const { deliveries, runs, executions, outbound } = report;
  const o = report.options;
  const lines = [
    '',
    `soak summary (${report.seconds.total.toFixed(0)} s: load ${report.seconds.load.toFixed(0)} s, settle ${report.seconds.settle.toFixed(0)} s${report.settled ? '' : ', NOT SETTLED'})`,
    `  setup: ${o.servers} servers + ${o.workers} workers, ${o.orgs} orgs, lease ${o.leaseSeconds} s, runs per org ${o.runsPerOrg}, runs max ${o.runsMax}, ${o.runConcurrency} per process, grace ${o.shutdownGraceMs} ms, seed ${o.seed}`,
    `  deliveries: ${deliveries.sent} sent in ${deliveries.requests} requests (${deliveries.redeliveries} redeliveries, ${deliveries.retries} retries); ${deliveries.acknowledged} acknowledged, ${deliveries.notAcknowledged} never; ${deliveries.duplicateAnswers} answered as duplicates; ${deliveries.stored} stored`,
    `  answers: ${list(deliveries.statuses)}`,
    `  runs: ${runs.total} (${list(runs.byStatus)}); attempts: ${list(runs.attempts)}`,
    `  executions (ledger): ${executions.total} (${executions.endedByLedger} ended by their own line, ${executions.vanished} killed, ${executions.open} open)`,
    `  most live at once: executions ${report.peaks.ledger.global} overall (limit ${o.runsMax}), ${report.peaks.ledger.perOrg} in an org (limit ${o.runsPerOrg}), ${report.peaks.ledger.perKey} of a key (limit 1); runs ${report.peaks.runs.global}, ${report.peaks.runs.perOrg}, ${report.peaks.runs.perKey}`,
    `  model calls: ${list(report.model)}`,
    `  outbound messages: ${outbound.messages} (${list(outbound.byType)}); received ${outbound.received}, ${outbound.receivedMoreThanOnce} more than once`,
    `  faults: ${list(report.faults)}`,
    '  checks:',
  ];
  const width = Math.max(...report.checks.map((check) => check.name.length));
  for (const check of report.checks) {
    const underWork = (CHECKS_UNDER_WORK as readonly string[]).includes(check.name) ? '  (depends on work under way)' : '';
    lines.push(
      `    ${check.name.padEnd(width)}  ${check.violations === 0 ? 'ok' : `${check.violations} VIOLATION${check.violations === 1 ? '' : 'S'}`}${underWork}`,
    );
    for (const example of check.examples) lines.push(`      - ${example.length > 1200 ? `${example.slice(0, 1200)}…` : example}`);
  }
  lines.push(report.violations === 0 ? '  no violations' : `  ${report.violations} violations in all`);
  if (report.dir) lines.push(`  ledger and process logs kept in ${report.dir}`);
  return lines.join('\n');
}
