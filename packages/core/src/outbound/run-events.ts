/**
 * Outbound events of runs, from the run events: `run.started` (each attempt), `run.completed`,
 * `run.failed` and `run.cancelled`, carrying the run as the API returns it (its report on the
 * thread too), with its reason in `error_detail` and its event in `delivery_id` and `event_key`.
 * Runs SKIPPED and runs released to PENDING tell subscribers nothing.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { RunEventBus } from '../kernel/run-event-bus.js';
import type { RunRecord } from '../schemas/run.js';
import type { OutboundEventType } from '../schemas/subscription.js';
import { toRunView } from '../runs/run-view.js';

const FINISHED: Partial<Record<RunRecord['status'], OutboundEventType>> = {
  COMPLETED: 'run.completed',
  FAILED: 'run.failed',
  CANCELLED: 'run.cancelled',
};

export function emitRunEvents(context: Pick<ServiceContext, 'storage' | 'outbound'>, bus: RunEventBus): void {
  const emit = async (run: RunRecord, type: OutboundEventType) => {
    // Reports are kept apart from runs; most runs have none, and a read that fails sends the run without.
    const report = await context.storage.runReports.get(run.org_id, run.id).catch(() => null);
    context.outbound.emit(run.org_id, type, toRunView(run, report));
  };
  // Awaited by the change that tells it, so a run's events are stored in the order they happened.
  bus.on('run.started', ({ run }) => emit(run, 'run.started'));
  bus.on('run.finished', ({ run }) => {
    const type = FINISHED[run.status];
    return type ? emit(run, type) : undefined;
  });
}
