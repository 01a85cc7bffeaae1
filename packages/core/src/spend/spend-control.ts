/**
 * Spend control: which budgets cover a spender (the org, the user, the automation), whether one
 * of them is spent — asked before a run starts, before each model call and on a dispatch — and
 * the meter that writes what an agent's model calls cost to the spend ledger as it goes.
 * @module
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { SpendTotalKey } from '../ports/spend-repository.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { BudgetRecord } from '../schemas/budget.js';
import type { MetricsSnapshot } from '../schemas/metrics.js';
import { dayOf, periodEnd, periodStart } from './budget-periods.js';

/** Whose model calls are counted: spend is the org's, its user's (an automation's owner) and the automation's (`null` for an API conversation). */
export interface Spender {
  orgId: string;
  userId: string;
  automationId: string | null;
}

/** A budget whose cap is reached, with what was spent in its current period. */
export interface BudgetBreach {
  budget: BudgetRecord;
  spentUsd: number;
  periodStart: string;
  resetsAt: Date;
}

/** Whether `budget` caps `spender`'s spend. */
export function covers(budget: BudgetRecord, spender: Spender): boolean {
  if (budget.scope === 'org') return true;
  if (budget.scope === 'user') return budget.subject_id === spender.userId;
  return spender.automationId !== null && budget.subject_id === spender.automationId;
}

/** The running total a budget reads at `now`: its subject's, in its current period. */
export const totalKeyOf = (budget: BudgetRecord, now: Date): SpendTotalKey => ({
  scope: budget.scope,
  subjectId: budget.scope === 'org' ? null : budget.subject_id,
  period: budget.period,
  start: periodStart(budget.period, now),
});

/** Dollars as people write them: cents, or four places for a fraction of a cent that matters. */
const usd = (value: number): string => `$${value >= 1 || Math.abs(value * 100 - Math.round(value * 100)) < 1e-9 ? value.toFixed(2) : value.toFixed(4)}`;

/** The reason a breach gives, with the cap and the figures: what a stopped run or a refused dispatch says. */
export function describeBreach(breach: BudgetBreach): string {
  const { budget } = breach;
  const whose = budget.scope === 'org' ? "the org's" : `${budget.scope} ${budget.subject_id}'s`;
  const period = budget.period === 'day' ? 'daily' : 'monthly';
  const since = budget.period === 'day' ? `on ${breach.periodStart}` : `since ${breach.periodStart}`;
  return `budget exceeded: ${whose} ${period} budget of ${usd(budget.limit_usd)} is spent (${usd(breach.spentUsd)} ${since}; it resets at ${breach.resetsAt.toISOString()})`;
}

export class SpendControl {
  constructor(private readonly ports: { storage: StorageAdapter; clock: Clock; logger: Logger }) {}

  /**
   * The budget covering `spender` whose cap is reached, or `null`. When several are, the one that
   * resets last: the one that keeps the work from going on longest.
   */
  async breachOf(spender: Spender): Promise<BudgetBreach | null> {
    const { storage, clock } = this.ports;
    const budgets = (await storage.budgets.list(spender.orgId)).filter((budget) => covers(budget, spender));
    // No budget, no sum: an org without budgets pays one indexed read per check.
    if (budgets.length === 0) return null;
    const now = clock.now();
    const spent = await Promise.all(budgets.map((budget) => storage.spend.periodTotal(spender.orgId, totalKeyOf(budget, now))));
    let breach: BudgetBreach | null = null;
    budgets.forEach((budget, index) => {
      const spentUsd = spent[index] ?? 0;
      if (spentUsd < budget.limit_usd) return;
      const resetsAt = periodEnd(budget.period, now);
      if (!breach || resetsAt > breach.resetsAt) breach = { budget, spentUsd, periodStart: periodStart(budget.period, now), resetsAt };
    });
    return breach;
  }

  /** The reason `spender` may not call a model now, or `null`: what the agent asks before each call. */
  async refusal(spender: Spender): Promise<string | null> {
    const breach = await this.breachOf(spender);
    return breach ? describeBreach(breach) : null;
  }

  /** A meter for one agent's work: writes to the ledger what each of its snapshots adds. */
  meter(spender: Spender): SpendMeter {
    return new SpendMeter(this.ports, spender);
  }
}

/**
 * Turns an agent's running totals (its metrics snapshots) into ledger increments: each snapshot
 * adds what grew since the last one counted. An increment that cannot be written is logged and
 * carried into the next one, so a storage hiccup delays spend rather than losing it.
 */
export class SpendMeter {
  private counted = { cost: 0, prompt: 0, completion: 0, calls: 0 };
  /** Records one at a time: two at once would both count what grew since the same snapshot. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ports: { storage: StorageAdapter; clock: Clock; logger: Logger },
    private readonly spender: Spender,
  ) {}

  /** Adds to the ledger what `snapshot` holds beyond what was counted; resolves once written (or logged as not). */
  record(snapshot: MetricsSnapshot): Promise<void> {
    const recorded = this.queue.then(() => this.write(snapshot));
    this.queue = recorded;
    return recorded;
  }

  private async write(snapshot: MetricsSnapshot): Promise<void> {
    const usage = snapshot.accumulated_token_usage;
    const now = { cost: snapshot.accumulated_cost, prompt: usage.prompt_tokens, completion: usage.completion_tokens, calls: snapshot.llm_calls };
    // Totals that went down are a new count (an agent that started over): all of it is new.
    const base = now.calls < this.counted.calls || now.cost < this.counted.cost ? { cost: 0, prompt: 0, completion: 0, calls: 0 } : this.counted;
    const increment = {
      cost: Math.max(0, now.cost - base.cost),
      prompt: Math.max(0, now.prompt - base.prompt),
      completion: Math.max(0, now.completion - base.completion),
      calls: Math.max(0, now.calls - base.calls),
    };
    if (increment.cost === 0 && increment.calls === 0 && increment.prompt === 0 && increment.completion === 0) return;
    try {
      await this.ports.storage.spend.add({
        org_id: this.spender.orgId,
        user_id: this.spender.userId,
        automation_id: this.spender.automationId,
        model: snapshot.model_name,
        day: dayOf(this.ports.clock.now()),
        cost_usd: increment.cost,
        prompt_tokens: increment.prompt,
        completion_tokens: increment.completion,
        llm_calls: increment.calls,
      });
      this.counted = now;
    } catch (error) {
      this.ports.logger.warn(
        { kind: 'spend', orgId: this.spender.orgId, err: String(error) },
        'spend ledger: an increment could not be written; it is added to the next one',
      );
    }
  }
}
