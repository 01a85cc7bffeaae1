/**
 * What follows every run transition: its log line (`run-log.ts`) and, for the transitions
 * subscribers hear of, an outbound event (DESIGN §16) — `run.started` (each attempt),
 * `run.completed`, `run.failed` and `run.cancelled`, carrying the run as the API returns it,
 * with its reason in `error_detail` and its event in `delivery_id` and `event_key`.
 * @module
 */
import type { LogLevel } from '../ports/logger.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';
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

/** Logs `run`'s move from `from` to its status now, and tells subscribers. */
export function noteRunTransition(context: ServiceContext, run: RunRecord, from: RunStatus | null, level?: LogLevel): void {
  logRunTransition(context.logger, run, from, level);
  const type = EVENT_OF[run.status];
  if (type) context.outbound.emit(run.org_id, type, toRunView(run));
}
