/**
 * Conformance: `transaction(fn)`. Atomicity (all writes through `tx` land or none do), the
 * transaction reading its own writes, nobody else reading them before commit, and concurrent
 * transactions behaving as if run one after another — one file per property.
 * @module
 */
import { describe } from 'vitest';
import type { SuiteContext } from './context.js';
import { describeTransactionAtomicity } from './transaction-atomicity.js';
import { describeTransactionConcurrency } from './transaction-concurrency.js';
import { describeTransactionIsolation } from './transaction-isolation.js';
import { describeTransactionOwnReads } from './transaction-own-reads.js';

export function describeTransactions(ctx: SuiteContext): void {
  describe('transaction', () => {
    describeTransactionAtomicity(ctx);
    describeTransactionOwnReads(ctx);
    describeTransactionIsolation(ctx);
    describeTransactionConcurrency(ctx);
  });
}
