/**
 * The soak with faults (`bench/soak.ts`, docs/reliability.md) at CI size, about a minute: two
 * reference servers and a worker on a PostgreSQL cluster of the test's own, each behind a proxy
 * that can pause; 200 signed deliveries over 10 orgs (with redeliveries), runs of the built-in agent
 * against the scripted model, each tool call recording itself in a ledger; meanwhile three process
 * kills (SIGKILL, restarted), one PostgreSQL restart and one pause of a process's database link
 * longer than the lease. Then every check must find nothing: deliveries stored once, runs final
 * once with one final message each, limits and concurrency keys held (by the ledger's real
 * executions and by the database's transitions), no tool call executed twice, no process dying by
 * itself.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../bench/soak/checks.js';
import { CI_OPTIONS, DEFAULT_OPTIONS } from '../../bench/soak/options.js';
import { formatReport } from '../../bench/soak/report.js';
import { runSoak } from '../../bench/soak/run.js';

describe('the soak with faults, CI-sized', () => {
  it('finds no violation: deliveries, runs, final messages, limits, concurrency keys, tool calls, processes', { timeout: 300_000 }, async () => {
    const progress: string[] = [];
    const options = { ...DEFAULT_OPTIONS, ...CI_OPTIONS, log: (line: string) => progress.push(line) };
    const report = await runSoak(options);
    const summary = `${progress.join('\n')}\n${formatReport(report)}`;

    // The soak did what it is for: the load went through, the faults happened, the limits were reached.
    expect(report.settled, summary).toBe(true);
    expect(report.deliveries.sent).toBe(options.deliveries);
    expect(report.deliveries.acknowledged, summary).toBeGreaterThan(options.deliveries * 0.9);
    expect(report.deliveries.duplicateAnswers, summary).toBeGreaterThan(0);
    expect(report.faults.sigkill, summary).toBeGreaterThanOrEqual(2);
    expect(report.faults['pg-restart'], summary).toBe(1);
    expect(report.faults['pause-one'] + report.faults['pause-all'], summary).toBe(1);
    expect(report.runs.total, summary).toBeGreaterThan(100);
    expect(report.peaks.runs.global, summary).toBe(options.runsMax);
    expect(report.peaks.runs.perOrg, summary).toBe(options.runsPerOrg);

    // Every check, by name, with zero violations. The ledger's limits and the tool calls executed
    // twice depend on fencing a dead attempt's commands and on resuming a run from its stored
    // events; they are asserted like the rest.
    const violations = Object.fromEntries(report.checks.map((check) => [check.name, check.violations]));
    expect(Object.keys(violations).sort()).toEqual(Object.values(CHECK_NAMES).sort());
    expect(violations, summary).toEqual(Object.fromEntries(Object.values(CHECK_NAMES).map((name) => [name, 0])));
  });
});
