import { createMemoryStorage } from '@agent-platform/storage-memory';
import { describe, expect, it } from 'vitest';
import { noopLogger } from '../ports/logger.js';
import type { BudgetRecord } from '../schemas/budget.js';
import type { MetricsSnapshot } from '../schemas/metrics.js';
import { addDays, daysBetween, periodEnd, periodStart } from './budget-periods.js';
import { describeBreach, SpendControl } from './spend-control.js';

const NOW = new Date('2026-11-28T21:30:00Z');
const clock = { now: () => NOW };

function budget(overrides: Partial<BudgetRecord>): BudgetRecord {
  return {
    id: `bud_${Math.random().toString(36).slice(2)}`,
    org_id: 'acme',
    scope: 'org',
    subject_id: null,
    period: 'month',
    limit_usd: 1,
    updated_by: 'alice',
    created_at: NOW.toISOString(),
    updated_at: NOW.toISOString(),
    ...overrides,
  };
}

function snapshot(cost: number, calls: number): MetricsSnapshot {
  return {
    model_name: 'openai/gpt-4o',
    accumulated_cost: cost,
    cost_known: true,
    max_budget_per_task: null,
    accumulated_token_usage: { prompt_tokens: calls * 100, completion_tokens: calls * 10, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
    llm_calls: calls,
  };
}

const spend = (day: string, cost: number, overrides: { user_id?: string; automation_id?: string | null } = {}) => ({
  org_id: 'acme',
  user_id: 'alice',
  automation_id: 'auto_1',
  model: 'openai/gpt-4o',
  day,
  cost_usd: cost,
  prompt_tokens: 0,
  completion_tokens: 0,
  llm_calls: 1,
  ...overrides,
});

describe('budget periods (UTC)', () => {
  it('start on the day or the first of the month, and end at the next midnight or month', () => {
    expect(periodStart('day', NOW)).toBe('2026-11-28');
    expect(periodStart('month', NOW)).toBe('2026-11-01');
    expect(periodEnd('day', NOW).toISOString()).toBe('2026-11-29T00:00:00.000Z');
    expect(periodEnd('month', NOW).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(periodEnd('month', new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(periodEnd('month', new Date('2027-01-31T12:00:00Z')).toISOString()).toBe('2027-02-01T00:00:00.000Z');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(daysBetween('2026-11-01', '2026-11-30')).toBe(30);
  });
});

describe('SpendControl', () => {
  it('refuses when a covering budget is spent, counting only its period and subject', async () => {
    const storage = createMemoryStorage();
    const control = new SpendControl({ storage, clock, logger: noopLogger });
    const alice = { orgId: 'acme', userId: 'alice', automationId: 'auto_1' };
    expect(await control.breachOf(alice)).toBeNull();
    await storage.budgets.put(budget({ scope: 'user', subject_id: 'alice', period: 'day', limit_usd: 1 }));
    await storage.budgets.put(budget({ scope: 'automation', subject_id: 'auto_2', period: 'day', limit_usd: 0.01 }));
    // Yesterday's spend and bob's do not count against alice's daily cap.
    await storage.spend.add(spend('2026-11-27', 5));
    await storage.spend.add(spend('2026-11-28', 5, { user_id: 'bob' }));
    await storage.spend.add(spend('2026-11-28', 0.99));
    expect(await control.breachOf(alice)).toBeNull();
    await storage.spend.add(spend('2026-11-28', 0.01));
    const breach = await control.breachOf(alice);
    expect(breach?.budget).toMatchObject({ scope: 'user', subject_id: 'alice' });
    expect(breach?.spentUsd).toBeCloseTo(1, 10);
    expect(describeBreach(breach!)).toBe(
      "budget exceeded: user alice's daily budget of $1.00 is spent ($1.00 on 2026-11-28; it resets at 2026-11-29T00:00:00.000Z)",
    );
    // Bob is not alice: the user cap does not hold him; nor does auto_2's cap hold auto_1's work.
    expect(await control.breachOf({ ...alice, userId: 'bob' })).toBeNull();
    // An API conversation is not auto_2's.
    expect(await control.breachOf({ orgId: 'acme', userId: 'bob', automationId: null })).toBeNull();
  });

  it('names the cap that resets last when several are spent, and answers 429 with when', async () => {
    const storage = createMemoryStorage();
    const control = new SpendControl({ storage, clock, logger: noopLogger });
    await storage.budgets.put(budget({ period: 'day', limit_usd: 0.5 }));
    await storage.budgets.put(budget({ period: 'month', limit_usd: 2 }));
    await storage.spend.add(spend('2026-11-02', 1.5));
    await storage.spend.add(spend('2026-11-28', 0.6));
    const breach = await control.breachOf({ orgId: 'acme', userId: 'alice', automationId: 'auto_1' });
    expect(breach?.budget.period).toBe('month');
    // It holds everyone in the org, until the month's end.
    const carol = await control.breachOf({ orgId: 'acme', userId: 'carol', automationId: null });
    expect(carol?.resetsAt.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    // Another org is untouched.
    expect(await control.breachOf({ orgId: 'globex', userId: 'alice', automationId: 'auto_1' })).toBeNull();
  });

  it('meters what each snapshot adds, once, and counts an agent that started over from zero', async () => {
    const storage = createMemoryStorage();
    const control = new SpendControl({ storage, clock, logger: noopLogger });
    const meter = control.meter({ orgId: 'acme', userId: 'alice', automationId: null });
    // The same snapshot twice at once (its event and a check before the next call) counts once.
    await Promise.all([meter.record(snapshot(0.1, 1)), meter.record(snapshot(0.1, 1))]);
    await meter.record(snapshot(0.3, 2));
    await meter.record(snapshot(0.05, 1));
    const [row] = await storage.spend.list({ orgId: 'acme', from: '2026-11-28', to: '2026-11-28' });
    expect(row).toMatchObject({ user_id: 'alice', automation_id: null, llm_calls: 3, prompt_tokens: 300, completion_tokens: 30 });
    expect(row?.cost_usd).toBeCloseTo(0.35, 10);
  });

  it('carries an increment it could not write into the next one', async () => {
    const storage = createMemoryStorage();
    const add = storage.spend.add.bind(storage.spend);
    let fail = true;
    (storage.spend as { add: typeof add }).add = async (row) => {
      if (fail) throw new Error('the database is away');
      return add(row);
    };
    const control = new SpendControl({ storage, clock, logger: noopLogger });
    const meter = control.meter({ orgId: 'acme', userId: 'alice', automationId: 'auto_1' });
    await meter.record(snapshot(0.2, 1));
    fail = false;
    await meter.record(snapshot(0.5, 2));
    expect(await storage.spend.total({ orgId: 'acme', from: '2026-11-28', to: '2026-11-28' })).toBeCloseTo(0.5, 10);
  });
});
