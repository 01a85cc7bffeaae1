/**
 * Conformance: values an attacker (or a careless client) can send. JSON allows lone surrogates
 * ("\ud800" without its pair) and U+0000 in any string, and a backend may not (PostgreSQL's
 * `jsonb` and `text` refuse both): whatever a record holds is stored and given back exactly — in
 * every free-text field, and in the user-chosen keys a record is found by (a webhook's source, an
 * org id, a dedup key, a GitHub login). A lookup, update or delete by a key with such characters
 * finds exactly the record stored under it, or nothing — it never throws. Values nested deeper
 * than any backend nests natively (10,000 levels) are stored and read back too. One file per
 * property; the values themselves are in `hostile-inputs.ts`.
 * @module
 */
import { describe } from 'vitest';
import type { SuiteContext } from './context.js';
import { describeHostileKeys } from './hostile-keys.js';
import { describeHostileNesting } from './hostile-nesting.js';
import { describeHostileRecords } from './hostile-records.js';

// The inputs are part of this module's interface: other groups (`outbound-hostile.ts`) test their
// records with the same values.
export { HOSTILE_TEXTS, nestedJsonText, nestedValue, sameJson } from './hostile-inputs.js';

export function describeHostileValues(ctx: SuiteContext): void {
  describe('hostile values: lone surrogates, U+0000, deep nesting', () => {
    describeHostileRecords(ctx);
    describeHostileKeys(ctx);
    describeHostileNesting(ctx);
  });
}
