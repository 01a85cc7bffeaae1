/**
 * The storage ports of spend control: the spend ledger (what model calls cost, per org, user,
 * automation, model and day) and the budgets that cap it.
 * @module
 */
import type { BudgetPeriod, BudgetRecord, BudgetScope, SpendRow } from '../schemas/budget.js';

/** Which ledger rows a read covers: one org's, over days `from`..`to` (both included), optionally one user's or one automation's. */
export interface SpendQuery {
  orgId: string;
  /** First day, `YYYY-MM-DD`. */
  from: string;
  /** Last day, `YYYY-MM-DD`, included. */
  to: string;
  userId?: string;
  /** An automation's id; the ledger's `null` (API conversations) is never matched by it. */
  automationId?: string;
}

/**
 * The spend of one subject in one period, as a budget reads it: the org's, a user's or an
 * automation's, on one UTC day (`start` that day) or in one month (`start` its first day).
 */
export interface SpendTotalKey {
  scope: BudgetScope;
  /** The user or automation; `null` for the org. */
  subjectId: string | null;
  period: BudgetPeriod;
  /** `YYYY-MM-DD`: the day, or the month's first day. */
  start: string;
}

/**
 * The spend ledger: one row per (org, user, automation, model, day), only ever added to, and
 * beside it the running total of each subject's day and month, so a budget check reads one
 * total rather than summing the period's rows. Conformance: `describeSpend`.
 */
export interface SpendRepository {
  /**
   * Adds `increment`'s cost, tokens and calls to its row (created at zero when missing), and its
   * cost to the totals of its day and month for the org, the user and (when it has one) the
   * automation — all or nothing. Adds from many processes at once all count (atomic increments,
   * never a read-then-write).
   */
  add(increment: SpendRow): Promise<void>;
  /** The total of `key` in `orgId`, in USD: the sum of the ledger rows it covers; 0 when none. */
  periodTotal(orgId: string, key: SpendTotalKey): Promise<number>;
  /** The cost summed over the rows `query` covers, in USD; 0 when there are none. */
  total(query: SpendQuery): Promise<number>;
  /** The rows `query` covers, in no particular order. */
  list(query: SpendQuery): Promise<SpendRow[]>;
}

/**
 * Each org's budgets, at most one per (scope, subject, period). Conformance: `describeBudgets`.
 */
export interface BudgetsRepository {
  /** The org's budgets, oldest first (by `created_at`, then `id`). */
  list(orgId: string): Promise<BudgetRecord[]>;
  /**
   * Stores `record`; when the org has a budget with the same scope, subject and period, that one
   * keeps its `id` and `created_at` and takes `limit_usd`, `updated_by` and `updated_at`. Answers
   * the budget as stored.
   */
  put(record: BudgetRecord): Promise<BudgetRecord>;
  /** True when the org's budget existed. */
  delete(orgId: string, id: string): Promise<boolean>;
}
