/**
 * What follows every run transition: its log line (`run-log.ts`) and, for the transitions
 * subscribers hear of, an outbound event (DESIGN §16) — `run.started` (each attempt),
 * `run.completed`, `run.failed` and `run.cancelled`, carrying the run as the API returns it,
 * with its reason in `error_detail` and its event in `delivery_id` and `event_key`.
 * @module
 */
import type { LogLevel } from '../ports/logger.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';
import { FINAL_RUN_STATUSES } from '../schemas/vocabulary.js';
import type { OutboundEventType } from '../schemas/subscription.js';
import type { ServiceContext } from '../kernel/context.js';
import { toRunView } from './run-view.js';
import { logRunTransition } from './run-log.js';

const EVENT_OF: Partial<Record<RunStatus, OutboundEventType>> = {
  RUNNING: 'run.started',
  COMPLETED: 'run.completed',
  FAILED: 'run.failed',
  CANCELLED: 'run.cancelled',
};

/** The run metrics: attempts started, runs finished by status, and how long a finished attempt ran. */
function countTransition(context: ServiceContext, run: RunRecord): void {
  const { metrics } = context.telemetry;
  if (run.status === 'RUNNING') metrics.runStarted();
  else if (FINAL_RUN_STATUSES.includes(run.status)) {
    const seconds = run.started_at && run.completed_at ? (Date.parse(run.completed_at) - Date.parse(run.started_at)) / 1000 : null;
    metrics.runFinished(run.status, seconds);
  }
}

/** Logs `run`'s move from `from` to its status now, and tells subscribers. */
export function noteRunTransition(context: ServiceContext, run: RunRecord, from: RunStatus | null, level?: LogLevel): void {
  logRunTransition(context.logger, run, from, level);
  countTransition(context, run);
  const type = EVENT_OF[run.status];
  if (type) context.outbound.emit(run.org_id, type, toRunView(run));
}
