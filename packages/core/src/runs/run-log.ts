/**
 * The one log line of each run transition, written by whoever made the transition,
 * from the run as the transition left it: its ids, `from` → `to`, the attempt, and the reason
 * stored on the run (`error_detail`: why it failed, was skipped, cancelled or handed back). A
 * stored reason is already scrubbed of the agent's secrets (see `AgentSession.run`).
 *
 * FAILED runs, and attempts that failed and wait for a retry, are logged at `warn`; the rest at
 * `info`.
 * @module
 */
import { logsAt, type Logger, type LogLevel } from '../ports/logger.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';
import { traceFields } from '../telemetry/tracing.js';

const MESSAGES: Record<RunStatus, string> = {
  PENDING: 'run requeued',
  RUNNING: 'run started',
  COMPLETED: 'run completed',
  FAILED: 'run failed',
  CANCELLED: 'run cancelled',
  SKIPPED: 'run skipped',
};

/**
 * Logs `run`'s move from `from` to its status now. `from` is `null` when the transition allowed
 * several (a cancel moves a PENDING or a RUNNING run, in one compare-and-set that does not say
 * which).
 */
export function logRunTransition(logger: Logger, run: RunRecord, from: RunStatus | null, level: LogLevel = run.status === 'FAILED' ? 'warn' : 'info'): void {
  if (!logsAt(logger, level)) return;
  const line: Record<string, unknown> = {
    kind: 'run',
    runId: run.id,
    automationId: run.automation_id,
    orgId: run.org_id,
    from,
    to: run.status,
    attempt: run.attempt,
    ...traceFields(),
  };
  if (run.delivery_id) line.deliveryId = run.delivery_id;
  if (run.error_detail) line.reason = run.error_detail;
  if (run.status === 'PENDING' && run.not_before) line.notBefore = run.not_before;
  logger[level](line, MESSAGES[run.status]);
}
