/**
 * The engine's metrics (OpenTelemetry metrics API; the host's SDK exports them — the reference
 * server in Prometheus' text format at `/metrics`). Instruments are created when the platform is
 * (the metrics API has no stand-in that picks up a provider registered later), from the
 * `meterProvider` given or the global one.
 *
 * Labels are bounded (see {@link BoundedLabel}): statuses and outcomes from fixed lists, and
 * names users choose (sources, orgs) cut to their first distinct values. No ids, no payload
 * values, no secrets.
 * @module
 */
import type { Counter, Histogram, Meter, ObservableGauge } from '@opentelemetry/api';
import { BoundedLabel } from './bounded-label.js';

/** What became of an inbound request. */
export type IngestOutcome = 'matched' | 'unmatched' | 'ignored' | 'duplicate' | 'refused';

/** What became of one attempt to send an outbound message. */
export type OutboundResult = 'delivered' | 'retry' | 'failed';

/** Where the queue stands, counted over every process sharing the storage (read at collection). */
export interface QueueGauges {
  pending: number;
  oldestPendingAgeSeconds: number;
  runningByOrg: Record<string, number>;
  sandboxesByStatus: Record<string, number>;
}

/** Distinct sources, orgs and models a label keeps before it says `other`. */
export const LABEL_LIMITS = { sources: 200, orgs: 200 } as const;

const SECONDS_FAST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const SECONDS_SLOW = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];

export class CoreMetrics {
  private readonly sources = new BoundedLabel(LABEL_LIMITS.sources);
  private readonly orgs = new BoundedLabel(LABEL_LIMITS.orgs);
  private readonly deliveries: Counter;
  private readonly ingestDuration: Histogram;
  private readonly runsStarted: Counter;
  private readonly runsFinished: Counter;
  private readonly runDuration: Histogram;
  private readonly outboundAttempts: Counter;
  private readonly sandboxCommands: Counter;
  private readonly gauges: ObservableGauge[];

  constructor(private readonly meter: Meter) {
    this.deliveries = meter.createCounter('agent_platform.deliveries', {
      description: 'Inbound webhook requests, by source and outcome (matched, unmatched, ignored, duplicate, refused)',
    });
    this.ingestDuration = meter.createHistogram('agent_platform.ingest.duration', {
      description: 'Time from an inbound request to its answer (verified, matched, stored), by source',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_FAST },
    });
    this.runsStarted = meter.createCounter('agent_platform.run.attempts', { description: 'Run attempts started (each retry counts)' });
    this.runsFinished = meter.createCounter('agent_platform.runs.finished', {
      description: 'Runs that reached a final status, by status (COMPLETED, FAILED, CANCELLED, SKIPPED)',
    });
    this.runDuration = meter.createHistogram('agent_platform.run.duration', {
      description: 'Time from a run attempt starting to its final status, by status',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_SLOW },
    });
    this.outboundAttempts = meter.createCounter('agent_platform.outbound.attempts', {
      description: 'Attempts to send an outbound event message, by result (delivered, retry, failed)',
    });
    this.sandboxCommands = meter.createCounter('agent_platform.sandbox.commands', {
      description: 'Commands started in sandboxes, by runtime and result (ok, error)',
    });
    this.gauges = [
      meter.createObservableGauge('agent_platform.queue.depth', { description: 'PENDING runs, over every process sharing the storage' }),
      meter.createObservableGauge('agent_platform.queue.oldest_age', { description: 'Age of the oldest PENDING run (0 with none)', unit: 's' }),
      meter.createObservableGauge('agent_platform.runs.live', { description: 'RUNNING runs, by org' }),
      meter.createObservableGauge('agent_platform.sandboxes', { description: 'Sandboxes stored, by status' }),
    ];
  }

  delivery(source: string, outcome: IngestOutcome, seconds: number): void {
    const label = this.sources.of(source);
    this.deliveries.add(1, { source: label, outcome });
    this.ingestDuration.record(seconds, { source: label });
  }

  runStarted(): void {
    this.runsStarted.add(1);
  }

  /** A run reached `status` (final); `seconds` since its attempt started, when it started. */
  runFinished(status: string, seconds: number | null): void {
    this.runsFinished.add(1, { status });
    if (seconds !== null && seconds >= 0) this.runDuration.record(seconds, { status });
  }

  outboundAttempt(result: OutboundResult): void {
    this.outboundAttempts.add(1, { result });
  }

  sandboxCommand(runtime: string, result: 'ok' | 'error'): void {
    this.sandboxCommands.add(1, { runtime, result });
  }

  /**
   * Reports the queue gauges from `read`, asked at each collection (a scrape). A failed read
   * (storage down) reports nothing this time rather than failing the scrape.
   */
  observeQueue(read: () => Promise<QueueGauges>): void {
    const [depth, oldest, live, sandboxes] = this.gauges as [ObservableGauge, ObservableGauge, ObservableGauge, ObservableGauge];
    this.meter.addBatchObservableCallback(async (result) => {
      const gauges = await read().catch(() => null);
      if (!gauges) return;
      result.observe(depth, gauges.pending);
      result.observe(oldest, gauges.oldestPendingAgeSeconds);
      const perOrg = new Map<string, number>();
      for (const [org, count] of Object.entries(gauges.runningByOrg)) {
        const label = this.orgs.of(org);
        perOrg.set(label, (perOrg.get(label) ?? 0) + count);
      }
      for (const [org, count] of perOrg) result.observe(live, count, { org });
      for (const [status, count] of Object.entries(gauges.sandboxesByStatus)) result.observe(sandboxes, count, { status });
    }, this.gauges);
  }
}
