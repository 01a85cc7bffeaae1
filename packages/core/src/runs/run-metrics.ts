/**
 * The run metrics, from the run events: attempts started, runs finished by status, and how long
 * a finished attempt ran.
 * @module
 */
import type { RunEventBus } from '../kernel/run-event-bus.js';
import type { CoreMetrics } from '../telemetry/metrics.js';

export function countRunEvents(bus: RunEventBus, metrics: CoreMetrics): void {
  bus.on('run.started', () => metrics.runStarted());
  bus.on('run.finished', ({ run }) => {
    const seconds = run.started_at && run.completed_at ? (Date.parse(run.completed_at) - Date.parse(run.started_at)) / 1000 : null;
    metrics.runFinished(run.status, seconds);
  });
}
