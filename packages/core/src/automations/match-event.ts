import { isTruthy } from '../expressions/jmespath.js';
import type { DeliveryOutcome } from '../schemas/delivery.js';
import type { CompiledAutomation } from './compiled-automation.js';
import type { SourceIndex } from './source-index.js';

/**
 * Up to this many candidates, the outcomes also list the automations whose `on` did not match
 * (reason `event_pattern`), which is what a user debugging "why did it not fire" wants to see.
 * Beyond it only automations whose pattern matched are listed, so an event's cost stays
 * proportional to the automations that can match it.
 */
export const PATTERN_MISS_OUTCOME_LIMIT = 100;

export interface MatchResult {
  /** One entry per candidate considered; `run_id` is filled in when runs are created. */
  outcomes: DeliveryOutcome[];
  matched: CompiledAutomation[];
}

const outcome = (automation: CompiledAutomation, reason: DeliveryOutcome['reason'], error: string | null = null): DeliveryOutcome => ({
  automation_id: automation.record.id,
  automation_name: automation.record.name,
  matched: reason === 'matched',
  reason,
  error,
  run_id: null,
});

/** Evaluates one automation's filter; a failure matches nothing (fail closed) and is reported. */
function filterOutcome(automation: CompiledAutomation, payload: unknown): DeliveryOutcome {
  if (automation.filterCompileError) return outcome(automation, 'filter_error', automation.filterCompileError);
  if (!automation.filter) return outcome(automation, 'matched');
  try {
    return outcome(automation, isTruthy(automation.filter.evaluate(payload)) ? 'matched' : 'filter_false');
  } catch (error) {
    return outcome(automation, 'filter_error', error instanceof Error ? error.message : String(error));
  }
}

/** Matches an event against an org's automations for its source (DESIGN §7). */
export function matchEvent(index: SourceIndex, eventKey: string, payload: unknown): MatchResult {
  const hits = index.lookup(eventKey);
  const outcomes: DeliveryOutcome[] = [];
  const matched: CompiledAutomation[] = [];
  if (index.size <= PATTERN_MISS_OUTCOME_LIMIT) {
    const hitSet = new Set(hits);
    for (const automation of index.all) {
      const result = hitSet.has(automation) ? filterOutcome(automation, payload) : outcome(automation, 'event_pattern');
      outcomes.push(result);
      if (result.matched) matched.push(automation);
    }
  } else {
    for (const automation of hits) {
      const result = filterOutcome(automation, payload);
      outcomes.push(result);
      if (result.matched) matched.push(automation);
    }
  }
  return { outcomes, matched };
}
