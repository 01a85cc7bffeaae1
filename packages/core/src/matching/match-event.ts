import { EvaluationBudgetError } from '../expressions/evaluation-budget.js';
import type { DeliveryOutcome } from '../schemas/delivery.js';
import type { CompiledAutomation } from './compiled-automation.js';
import type { SourceIndex } from './source-index.js';
import { actorOf } from '../threads/inbound-hosts.js';
import type { EventActor } from '../threads/event-actor.js';
import { threadCommand, type ThreadCommand } from '../threads/thread-command.js';
import { isThreadAutomation } from '../threads/thread-trigger.js';

/**
 * Up to this many candidates, the outcomes also list the automations whose `on` did not match
 * (reason `event_pattern`), which is what a user debugging "why did it not fire" wants to see.
 * Beyond it only automations whose pattern matched are listed, so an event's cost stays
 * proportional to the automations that can match it.
 */
export const PATTERN_MISS_OUTCOME_LIMIT = 100;

/**
 * The time all of one event's filters may take together, in ms. Each filter is bounded on its own
 * (`MAX_EVALUATION_MS`), but an org could save many hostile filters on one source; past this the
 * rest of the event's filters are not evaluated (fail closed, recorded), so one event never holds
 * the process for long. Only automations of the sender's own org and source share the cap.
 */
export const MAX_EVENT_FILTER_MS = 250;

export interface MatchResult {
  /** One entry per candidate considered; `run_id` is filled in when runs are created. */
  outcomes: DeliveryOutcome[];
  matched: CompiledAutomation[];
  /** What the event asks of each matched thread automation (by automation id): work, a stop, an answer. */
  commands: Map<string, ThreadCommand>;
  /** Who wrote the event and what (read once, for the thread automations among the candidates). */
  actor: EventActor | null;
}

const outcome = (automation: CompiledAutomation, reason: DeliveryOutcome['reason'], error: string | null = null): DeliveryOutcome => ({
  automation_id: automation.record.id,
  automation_name: automation.record.name,
  matched: reason === 'matched',
  reason,
  error,
  run_id: null,
});

/**
 * Evaluates one automation's filter; a failure matches nothing (fail closed) and is reported.
 * That includes going past the evaluation budget, which bounds every filter
 * in time and memory: a hostile filter costs its own automation a match, nothing more.
 */
function filterOutcome(automation: CompiledAutomation, payload: unknown): DeliveryOutcome {
  if (automation.filterCompileError) return outcome(automation, 'filter_error', automation.filterCompileError);
  if (!automation.filter) return outcome(automation, 'matched');
  try {
    return outcome(automation, automation.filter.test(payload) ? 'matched' : 'filter_false');
  } catch (error) {
    if (error instanceof EvaluationBudgetError) {
      return outcome(automation, 'filter_error', `filter exceeded its evaluation budget (${error.detail})`);
    }
    return outcome(automation, 'filter_error', error instanceof Error ? error.message : String(error));
  }
}

/** Matches an event against an org's automations for its source. */
export function matchEvent(index: SourceIndex, eventKey: string, payload: unknown): MatchResult {
  const hits = index.lookup(eventKey);
  const outcomes: DeliveryOutcome[] = [];
  const matched: CompiledAutomation[] = [];
  const commands = new Map<string, ThreadCommand>();
  let actor: EventActor | null = null;
  let spent = 0;
  const evaluate = (automation: CompiledAutomation): DeliveryOutcome => {
    if (isThreadAutomation(automation.record)) {
      actor ??= actorOf(automation.record.trigger.source, eventKey, payload);
      const command = threadCommand(automation.record.trigger, eventKey, payload, actor);
      if (command.kind === 'none') return outcome(automation, 'not_a_command', command.why);
      commands.set(automation.record.id, command);
    }
    if (!automation.filter || automation.filterCompileError) return filterOutcome(automation, payload);
    if (spent >= MAX_EVENT_FILTER_MS) {
      return outcome(automation, 'filter_error', `filter not evaluated: this event's filters already took more than ${MAX_EVENT_FILTER_MS} ms`);
    }
    const began = performance.now();
    const result = filterOutcome(automation, payload);
    spent += performance.now() - began;
    return result;
  };
  if (index.size <= PATTERN_MISS_OUTCOME_LIMIT) {
    const hitSet = new Set(hits);
    for (const automation of index.all) {
      const result = hitSet.has(automation) ? evaluate(automation) : outcome(automation, 'event_pattern');
      outcomes.push(result);
      if (result.matched) matched.push(automation);
    }
  } else {
    for (const automation of hits) {
      const result = evaluate(automation);
      outcomes.push(result);
      if (result.matched) matched.push(automation);
    }
  }
  return { outcomes, matched, commands, actor };
}
