/**
 * What spend control adds to a model call and to a run's start: the time of the budget check
 * (`SpendControl.refusal`: the org's budgets read, and for each covering one its period's spend
 * summed) and of a ledger write (`SpendMeter.record`), p50 and p99, on memory storage and on
 * PostgreSQL — for an org without budgets (one indexed read) and for one with three covering
 * budgets (org per month, the user per day, the automation per day) over a month of ledger rows
 * (30 days × 20 users × 10 automations × 2 models = 12,000 rows, beside another org's as many).
 * Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source budget-check.ts [checks]
 *
 * Uses the server at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * creates and drops its own database.
 */
import { noopLogger, SpendControl, systemClock, type MetricsSnapshot, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPostgresStorage } from '@agent-platform/storage-postgres';
import { percentile } from './support/stats.js';
import { withTempDatabase } from './support/temp-database.js';

const checks = Number(process.argv[2] ?? 2000);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const now = systemClock.now();
const dayBefore = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);

/** A month of spend for `orgId`: one row per day, user, automation and model. */
async function seed(storage: StorageAdapter, orgId: string): Promise<void> {
  const rows = [];
  for (let day = 0; day < 30; day++)
    for (let user = 0; user < 20; user++)
      for (let automation = 0; automation < 10; automation++)
        for (const model of ['openai/gpt-4o', 'anthropic/claude-sonnet-4'])
          rows.push({
            org_id: orgId,
            user_id: `user_${user}`,
            automation_id: `auto_${automation}`,
            model,
            day: dayBefore(day),
            cost_usd: 0.001,
            prompt_tokens: 100,
            completion_tokens: 10,
            llm_calls: 1,
          });
  for (let at = 0; at < rows.length; at += 200) await Promise.all(rows.slice(at, at + 200).map((row) => storage.spend.add(row)));
}

async function budgets(storage: StorageAdapter): Promise<void> {
  const at = now.toISOString();
  const base = { org_id: 'acme', limit_usd: 1_000, updated_by: 'alice', created_at: at, updated_at: at };
  await storage.budgets.put({ ...base, id: 'bud_org', scope: 'org', subject_id: null, period: 'month' });
  await storage.budgets.put({ ...base, id: 'bud_user', scope: 'user', subject_id: 'user_3', period: 'day' });
  await storage.budgets.put({ ...base, id: 'bud_auto', scope: 'automation', subject_id: 'auto_7', period: 'day' });
}

async function time(times: number[], work: () => Promise<unknown>): Promise<void> {
  const began = performance.now();
  await work();
  times.push(performance.now() - began);
}

const warm = (times: number[]) => times.slice(Math.floor(times.length / 10));
const figures = (times: number[]) => `p50 ${percentile(warm(times), 50).toFixed(2)} ms p99 ${percentile(warm(times), 99).toFixed(2)} ms`;

async function measure(storage: StorageAdapter): Promise<string> {
  const control = new SpendControl({ storage, clock: systemClock, logger: noopLogger });
  const spender = { orgId: 'acme', userId: 'user_3', automationId: 'auto_7' };
  await seed(storage, 'acme');
  await seed(storage, 'globex');
  const none: number[] = [];
  for (let n = 0; n < checks; n++) await time(none, () => control.refusal({ ...spender, orgId: 'initech' }));
  await budgets(storage);
  const three: number[] = [];
  for (let n = 0; n < checks; n++) await time(three, async () => expect(await control.refusal(spender)));
  const meter = control.meter(spender);
  const writes: number[] = [];
  for (let n = 1; n <= checks; n++) await time(writes, () => meter.record(snapshot(n)));
  return `check, no budgets ${figures(none)}; check, 3 budgets ${figures(three)}; ledger write ${figures(writes)}`;
}

function expect(refusal: string | null): void {
  if (refusal !== null) throw new Error(`a check refused: ${refusal}`);
}

function snapshot(calls: number): MetricsSnapshot {
  return {
    model_name: 'openai/gpt-4o',
    accumulated_cost: calls * 0.002,
    cost_known: true,
    max_budget_per_task: null,
    accumulated_token_usage: { prompt_tokens: calls * 100, completion_tokens: calls * 10, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
    llm_calls: calls,
  };
}

const memory = createMemoryStorage();
const memoryLine = await measure(memory);
await memory.close();
await withTempDatabase(adminUrl, async (url) => {
  const postgres = await createPostgresStorage({ connectionString: url });
  const postgresLine = await measure(postgres);
  await postgres.close();
  console.log(`budget-check (${checks} each; 24,000 ledger rows): memory ${memoryLine} | PostgreSQL ${postgresLine}`);
});
