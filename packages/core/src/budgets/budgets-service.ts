/**
 * Budgets and usage, as the API offers them: an org's budgets with what each has spent in its
 * current period, setting and removing one (owners; each change in the audit log), and the usage
 * report over a range of days.
 * @module
 */
import { keyActor } from '../audit/audit-log.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { notFound, validationError } from '../kernel/errors.js';
import { requireRole } from '../kernel/roles.js';
import { parseInput } from '../kernel/validation.js';
import type { Principal } from '../schemas/principal.js';
import { budgetInputSchema, type BudgetList, type BudgetRecord, type BudgetView, type Usage, type UsageQuery } from '../schemas/budget.js';
import { addDays, dayOf, daysBetween, periodEnd, periodStart } from '../spend/budget-periods.js';
import { totalKeyOf } from '../spend/spend-control.js';
import { usageReport } from './usage-report.js';

/** The longest usage report, in days: a year and a day, so any calendar year fits. */
export const MAX_USAGE_DAYS = 366;
/** Days a usage report covers when none are asked: the last 30, today included. */
export const DEFAULT_USAGE_DAYS = 30;

export class BudgetsService {
  constructor(private readonly context: ServiceContext) {}

  /** The org's budgets, oldest first, each with its spend in the current period. */
  async list(principal: Principal): Promise<BudgetList> {
    const budgets = await this.context.storage.budgets.list(principal.orgId);
    return { budgets: await Promise.all(budgets.map((budget) => this.view(budget))) };
  }

  /** Sets a cap (owners): a new budget, or a new limit for the one with the same scope, subject and period. */
  async put(principal: Principal, input: unknown): Promise<BudgetView> {
    requireRole(principal, 'owner', 'Setting a budget');
    const parsed = parseInput(budgetInputSchema, input);
    const now = nowIso(this.context);
    const record: BudgetRecord = {
      id: this.context.ids.newId('bud'),
      org_id: principal.orgId,
      scope: parsed.scope,
      subject_id: parsed.subject_id ?? null,
      period: parsed.period,
      limit_usd: parsed.limit_usd,
      updated_by: principal.userId,
      created_at: now,
      updated_at: now,
    };
    const stored = await this.context.storage.budgets.put(record);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'budget.set',
      target: { type: 'budget', id: stored.id },
      details: { scope: stored.scope, subject_id: stored.subject_id, period: stored.period, limit_usd: stored.limit_usd },
    });
    return this.view(stored);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    requireRole(principal, 'owner', 'Removing a budget');
    const budget = (await this.context.storage.budgets.list(principal.orgId)).find((each) => each.id === id);
    if (!budget || !(await this.context.storage.budgets.delete(principal.orgId, id))) throw notFound('Budget');
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'budget.deleted',
      target: { type: 'budget', id },
      details: { scope: budget.scope, subject_id: budget.subject_id, period: budget.period, limit_usd: budget.limit_usd },
    });
  }

  /** The org's spend over `query`'s days (default the last 30), in total and by day, user, automation and model. */
  async usage(principal: Principal, query: UsageQuery): Promise<Usage> {
    const today = dayOf(this.context.clock.now());
    const to = query.to ?? (query.from ? addDays(query.from, DEFAULT_USAGE_DAYS - 1) : today);
    const from = query.from ?? addDays(to, -(DEFAULT_USAGE_DAYS - 1));
    if (from > to) throw validationError(['query', 'from'], `from (${from}) is after to (${to})`);
    if (daysBetween(from, to) > MAX_USAGE_DAYS)
      throw validationError(['query', 'to'], `a usage report covers at most ${MAX_USAGE_DAYS} days; ${from} to ${to} is ${daysBetween(from, to)}`);
    const rows = await this.context.storage.spend.list({ orgId: principal.orgId, from, to });
    return usageReport(rows, from, to);
  }

  private async view(budget: BudgetRecord): Promise<BudgetView> {
    const now = this.context.clock.now();
    const start = periodStart(budget.period, now);
    const spent = await this.context.storage.spend.periodTotal(budget.org_id, totalKeyOf(budget, now));
    const spentUsd = Math.round(spent * 1e8) / 1e8;
    return { ...budget, spent_usd: spentUsd, period_start: start, resets_at: periodEnd(budget.period, now).toISOString(), exceeded: spent >= budget.limit_usd };
  }
}
