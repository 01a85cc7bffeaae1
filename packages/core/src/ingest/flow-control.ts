/**
 * Flow control of an automation's event runs, applied inside the transaction that
 * records the delivery, right after its runs are written — so what it reads (the automation's
 * live runs, its recent ones) and what it writes (cancelling runs, holding or skipping the new
 * one) are one atomic step, and concurrent deliveries for one key act as if one after another:
 * with `cancel_previous`, exactly one run per key is left live whatever the interleaving.
 *
 * For each new run, in order:
 * 1. `rate_limit`: when the automation already has `max_runs` runs created within the last
 *    `per_seconds` (SKIPPED and CANCELLED ones not counted), the new run ends SKIPPED, saying so.
 * 2. `debounce_seconds`: the group's PENDING runs (waiting out their own debounce) are CANCELLED,
 *    superseded by this one, which waits `debounce_seconds` — the last event of a burst wins.
 * 3. `concurrency_key` with `on_conflict` against the group's live runs: `cancel_previous` cancels
 *    them; `skip` ends the new run SKIPPED; `queue` leaves it PENDING, and the queue does not
 *    start it while one with its key is RUNNING.
 * A group is the automation's runs with the same key (for a debounce without a key: all of them).
 * A run held back says why in `held_reason`; a run cancelled or skipped, in `error_detail`.
 * @module
 */
import type { RunPatch, StorageRepositories } from '../ports/storage.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord } from '../schemas/run.js';

/** A new run and the automation whose flow control applies to it. */
export interface FlowRun {
  run: RunRecord;
  automation: AutomationRecord;
}

export interface FlowOutcome {
  /** Live runs this delivery's runs superseded: now CANCELLED. */
  cancelled: RunRecord[];
  /** This delivery's runs that flow control changed (skipped or held back), as stored. */
  changed: RunRecord[];
}

const CANCELLED_PATCH = { status: 'CANCELLED', held_reason: null, lease_owner: null, lease_expires_at: null } as const;

export async function applyFlowControl(tx: StorageRepositories, flows: readonly FlowRun[], now: Date): Promise<FlowOutcome> {
  const outcome: FlowOutcome = { cancelled: [], changed: [] };
  const at = now.toISOString();
  for (const { run, automation } of flows) {
    const patch = await decide(tx, run, automation, now, outcome);
    if (patch === null) continue;
    const written = await tx.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, patch.status === 'SKIPPED' ? { ...patch, completed_at: at } : patch);
    if (written) outcome.changed.push(written);
  }
  return outcome;
}

/** What flow control writes on the new run (`null`: nothing), after cancelling what it supersedes. */
async function decide(tx: StorageRepositories, run: RunRecord, automation: AutomationRecord, now: Date, outcome: FlowOutcome): Promise<RunPatch | null> {
  const at = now.toISOString();
  const limit = automation.rate_limit;
  if (limit) {
    const since = new Date(now.getTime() - limit.per_seconds * 1000).toISOString();
    // The new run is written already, so it is one of those counted.
    if ((await tx.runs.countCreatedSince(run.org_id, automation.id, since)) > limit.max_runs) {
      return { status: 'SKIPPED', error_detail: `rate limit: this automation starts at most ${limit.max_runs} run(s) per ${limit.per_seconds} s` };
    }
  }
  const key = run.concurrency_key ?? null;
  // A thread's runs are keyed by their thread when the automation names no key of its own.
  const keyed = (Boolean(automation.concurrency_key) || Boolean(run.thread_key)) && key !== null;
  if (!keyed && !automation.debounce_seconds) return null;
  const cancel = async (live: RunRecord, reason: string): Promise<void> => {
    const cancelled = await tx.runs.transition(
      live.org_id,
      live.id,
      { from: ['PENDING', 'RUNNING'] },
      { ...CANCELLED_PATCH, completed_at: at, error_detail: reason },
    );
    if (cancelled) outcome.cancelled.push(cancelled);
  };
  const keyText = !keyed ? '' : automation.concurrency_key ? ` with concurrency key ${JSON.stringify(key)}` : ` in thread ${key}`;
  let live = (await tx.runs.listLive(run.org_id, automation.id, key)).filter((other) => other.id !== run.id);
  let patch: RunPatch | null = null;
  if (automation.debounce_seconds) {
    for (const pending of live.filter((other) => other.status === 'PENDING')) {
      await cancel(pending, `superseded by run ${run.id}: a later event${keyText} arrived within the ${automation.debounce_seconds} s debounce window`);
    }
    live = live.filter((other) => other.status === 'RUNNING');
    const startsAt = new Date(now.getTime() + automation.debounce_seconds * 1000).toISOString();
    patch = { not_before: startsAt, held_reason: `debounced: starts at ${startsAt} unless a later event${keyText} replaces it` };
  }
  if (!keyed || live.length === 0) return patch;
  const first = live[0] as RunRecord;
  switch (automation.on_conflict ?? 'queue') {
    case 'cancel_previous':
      for (const other of live) await cancel(other, `superseded by run ${run.id} (delivery ${run.delivery_id ?? 'none'})${keyText}`);
      return patch;
    case 'skip':
      return { status: 'SKIPPED', error_detail: `skipped: run ${first.id}${keyText} is still ${first.status}` };
    case 'queue':
      return patch ?? { held_reason: `queued: waits for run ${first.id}${keyText} to finish` };
  }
}
