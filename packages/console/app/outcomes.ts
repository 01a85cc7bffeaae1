/** The words for a candidate automation's outcome, the same on the delivery log and in the filter tester. */
import type { AutomationValidationResult } from '@agent-platform/client';

/** A delivery outcome's reasons, and the tester's `no_event_key`. */
export type OutcomeReason = AutomationValidationResult['reason'];

const REASONS: Record<OutcomeReason, string> = {
  matched: 'matched',
  event_pattern: 'not matched: the event key matches none of its patterns',
  filter_false: 'not matched: its filter is false for this payload',
  filter_error: 'not matched: its filter failed',
  no_event_key: 'not matched: no event key',
};

/** `matched`, or why not, with the filter's error message when there is one. */
export function describeOutcome(reason: OutcomeReason, error?: string | null): string {
  return error ? `${REASONS[reason]} (${error})` : REASONS[reason];
}
