/** What a run's status says, the same on the runs list and on a run's page. */
import { FINAL_RUN_STATUSES, type Run } from '@agent-platform/client';

export const isFinal = (run: Run) => FINAL_RUN_STATUSES.includes(run.status);

/** Why a PENDING run waits (queued behind a run with its concurrency key, debounced), if it says. */
export const heldReason = (run: Run): string | null => (run.status === 'PENDING' && run.held_reason ? run.held_reason : null);
