/** The words for a candidate automation's outcome, the same on the delivery log and in the filter tester. */
import type { AutomationValidationResult } from '@agent-platform/client';

/** A delivery outcome's reasons, and the tester's `no_event_key`. */
export type OutcomeReason = AutomationValidationResult['reason'];

const REASONS: Record<OutcomeReason, string> = {
  matched: 'matched',
  event_pattern: 'not matched: the event key matches none of its patterns',
  filter_false: 'not matched: its filter is false for this payload',
  filter_error: 'not matched: its filter failed',
  not_a_command: 'not a command for it',
  actor_refused: 'refused: the sender may not command it',
  thread_command: 'a command in its thread, no new run',
  no_event_key: 'not matched: no event key',
};

/**
 * `matched`, or why not, with what the server said about it: the filter's error, who was refused
 * and why, or what a command in the thread did (a stop, an answer to a held action), which
 * starts no run of its own and so would otherwise leave the outcome unexplained.
 */
export function describeOutcome(reason: OutcomeReason, error?: string | null, detail?: string | null): string {
  const said = error ?? detail;
  return said ? `${REASONS[reason]} (${said})` : REASONS[reason];
}
