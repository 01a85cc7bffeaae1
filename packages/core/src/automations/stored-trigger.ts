/**
 * A trigger as stored, from one given: its `on` as given or, for a mention or label trigger, the
 * event keys it brings. On update, a trigger that ran on its mention's or label's own events
 * takes those of the new mention or label, unless `on` is given too.
 * @module
 */
import type { AutomationTriggerInput, StoredTrigger } from '../schemas/automation.js';
import { isDefaultEvents, triggerEvents } from '../threads/thread-trigger.js';

type GivenTrigger = Omit<AutomationTriggerInput, 'type'> & { source: string };

export function storedTrigger(trigger: GivenTrigger): StoredTrigger {
  const mention = trigger.mention ?? null;
  const label = trigger.label ?? null;
  return {
    type: 'event',
    source: trigger.source,
    on: triggerEvents({ on: trigger.on, mention, label, source: trigger.source }),
    filter: trigger.filter ?? null,
    ...(mention ? { mention } : {}),
    ...(label ? { label } : {}),
  };
}

/** The stored trigger and the members given, merged as an update merges them (before validation). */
export function mergedTrigger(stored: StoredTrigger, given: Partial<GivenTrigger>): Record<string, unknown> {
  const changes = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  const base: Record<string, unknown> = { ...stored };
  // A new mention or label brings its own events when the old one ran on its own.
  if (('mention' in changes || 'label' in changes) && !('on' in changes) && isDefaultEvents(stored)) delete base.on;
  return { ...base, ...changes };
}
