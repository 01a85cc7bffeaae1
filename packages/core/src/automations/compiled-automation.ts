import { compileGlob, type CompiledGlob } from '../expressions/glob.js';
import { compileExpression, type CompiledExpression } from '../expressions/jmespath.js';
import type { AutomationRecord } from '../schemas/automation.js';

/** An automation ready to match: its `on` patterns split into exact keys and globs, its filter compiled. */
export interface CompiledAutomation {
  readonly record: AutomationRecord;
  /** Patterns without wildcards: matched by map lookup. */
  readonly exactKeys: readonly string[];
  /** Patterns with wildcards. */
  readonly globs: readonly CompiledGlob[];
  /** `null` when there is no filter. */
  readonly filter: CompiledExpression | null;
  /** Why the stored filter no longer compiles (it did when saved), if it does not. */
  readonly filterCompileError: string | null;
}

export const patternsOf = (on: string | readonly string[]): readonly string[] => (typeof on === 'string' ? [on] : on);

export function compileAutomation(record: AutomationRecord): CompiledAutomation {
  const exactKeys: string[] = [];
  const globs: CompiledGlob[] = [];
  for (const pattern of patternsOf(record.trigger.on)) {
    const glob = compileGlob(pattern);
    if (glob.literal) exactKeys.push(pattern);
    else globs.push(glob);
  }
  let filter: CompiledExpression | null = null;
  let filterCompileError: string | null = null;
  if (record.trigger.filter) {
    try {
      filter = compileExpression(record.trigger.filter);
    } catch (error) {
      filterCompileError = (error as Error).message;
    }
  }
  return { record, exactKeys, globs, filter, filterCompileError };
}

/** Whether any of the automation's patterns matches the event key. */
export const matchesEventKey = (automation: CompiledAutomation, eventKey: string): boolean =>
  automation.exactKeys.includes(eventKey) || automation.globs.some((glob) => glob.matches(eventKey));
