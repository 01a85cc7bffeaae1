import type { Run, RunRecord, RunReport } from '../schemas/run.js';

/**
 * A run as returned: the stored dispatch payload, the lease and the backoff stay internal, and
 * its GitHub report — a record of its own (`storage.runReports`) — joins it (`null`: none).
 */
export function toRunView(record: RunRecord, report: RunReport | null = null): Run {
  const { dispatch_payload_json: _payload, lease_owner: _owner, lease_expires_at: _expires, not_before: _notBefore, trace_parent: _trace, ...run } = record;
  return {
    ...run,
    metrics: run.metrics ?? null,
    concurrency_key: run.concurrency_key ?? null,
    held_reason: run.held_reason ?? null,
    report,
  };
}
