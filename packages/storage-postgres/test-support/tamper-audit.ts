/**
 * The conformance suite's `tamperAuditEntry` hook for both backends: an SQL `UPDATE` of the
 * stored row, as someone with write access to the database would make it, past the adapter.
 */
import type { AuditEntry } from '@agent-platform/core';

/** Runs one statement on the database under test (a PGlite instance's `query`, a `pg` client's). */
export type RunStatement = (text: string, params: unknown[]) => Promise<unknown>;

/** A `tamperAuditEntry` that rewrites the org's row `seq`: the whole entry, and the action its filter reads. */
export const tamperAuditEntry =
  (run: RunStatement) =>
  async (orgId: string, seq: number, entry: AuditEntry): Promise<void> => {
    await run('UPDATE agent_platform.audit_entries SET data = $3::jsonb, action = $4 WHERE org_id = $1 AND seq = $2', [
      orgId,
      seq,
      JSON.stringify(entry),
      entry.action,
    ]);
  };
