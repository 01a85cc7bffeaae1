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
  /** The flow-control key expression; `null` when there is none (or it no longer compiles). */
  readonly concurrencyKey: CompiledExpression | null;
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
  let concurrencyKey: CompiledExpression | null = null;
  if (record.concurrency_key) {
    try {
      concurrencyKey = compileExpression(record.concurrency_key);
    } catch {
      // It compiled when saved; a later engine refusing it leaves the runs unkeyed rather than unrun.
    }
  }
  return { record, exactKeys, globs, filter, filterCompileError, concurrencyKey };
}

/** Whether any of the automation's patterns matches the event key. */
export const matchesEventKey = (automation: CompiledAutomation, eventKey: string): boolean =>
  automation.exactKeys.includes(eventKey) || automation.globs.some((glob) => glob.matches(eventKey));
