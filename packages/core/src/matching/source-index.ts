import type { AutomationRecord } from '../schemas/automation.js';
import { compileAutomation, matchesEventKey, type CompiledAutomation } from './compiled-automation.js';

/**
 * The enabled automations of one org and source, indexed by event key: automations whose
 * patterns are all exact are found by map lookup; only those with a wildcard pattern are tested
 * one by one. So the cost of an event grows with the automations that can match it.
 */
export class SourceIndex {
  readonly size: number;
  /** Every candidate, in a stable order (for outcome listings). */
  readonly all: readonly CompiledAutomation[];
  private readonly byExactKey = new Map<string, CompiledAutomation[]>();
  private readonly withGlobs: CompiledAutomation[] = [];

  constructor(records: readonly AutomationRecord[]) {
    const sorted = [...records].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
    this.all = sorted.map(compileAutomation);
    this.size = this.all.length;
    for (const automation of this.all) {
      for (const key of new Set(automation.exactKeys)) {
        let list = this.byExactKey.get(key);
        if (!list) {
          list = [];
          this.byExactKey.set(key, list);
        }
        list.push(automation);
      }
      if (automation.globs.length > 0) this.withGlobs.push(automation);
    }
  }

  /** The candidates whose `on` matches the event key, each once, in index order. */
  lookup(eventKey: string): CompiledAutomation[] {
    const exact = this.byExactKey.get(eventKey) ?? [];
    if (this.withGlobs.length === 0) return exact;
    const seen = new Set(exact);
    const result = [...exact];
    for (const automation of this.withGlobs) {
      if (!seen.has(automation) && matchesEventKey(automation, eventKey)) result.push(automation);
    }
    return result;
  }
}
