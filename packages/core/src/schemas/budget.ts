import { z } from 'zod';
import { timestampSchema } from './common.js';
import { BUDGET_PERIODS, BUDGET_SCOPES } from './vocabulary.js';

export const budgetScopeSchema = z.enum(BUDGET_SCOPES);
export type BudgetScope = z.infer<typeof budgetScopeSchema>;
export const budgetPeriodSchema = z.enum(BUDGET_PERIODS);
export type BudgetPeriod = z.infer<typeof budgetPeriodSchema>;

/** Largest cap accepted, in USD: anything above is a typo, not a budget. */
export const MAX_BUDGET_USD = 1_000_000;

/**
 * Body of `PUT /api/automation/v1/budgets`: a cap on the model spend of the org, of one user
 * (`subject_id`: their user id) or of one automation (`subject_id`: its id), per UTC day or
 * month. A second budget with the same scope, subject and period replaces the first one's limit.
 */
export const budgetInputSchema = z
  .strictObject({
    scope: budgetScopeSchema,
    /** The user or automation capped; omitted or `null` for the org. */
    subject_id: z.string().min(1).max(200).nullish(),
    period: budgetPeriodSchema,
    /** The cap, in US dollars of recorded model cost. */
    limit_usd: z.number().positive().max(MAX_BUDGET_USD),
  })
  .superRefine((input, ctx) => {
    const subject = input.subject_id ?? null;
    if (input.scope === 'org' && subject !== null)
      ctx.addIssue({ code: 'custom', path: ['subject_id'], message: 'An org budget caps the whole org: leave subject_id out' });
    if (input.scope !== 'org' && subject === null)
      ctx.addIssue({
        code: 'custom',
        path: ['subject_id'],
        message: `A ${input.scope} budget needs subject_id: the ${input.scope === 'user' ? 'user id' : 'automation id'} it caps`,
      });
  });
export type BudgetInput = z.infer<typeof budgetInputSchema>;

export const budgetRecordSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  scope: budgetScopeSchema,
  subject_id: z.string().nullable(),
  period: budgetPeriodSchema,
  limit_usd: z.number(),
  /** The user who set it last. */
  updated_by: z.string().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type BudgetRecord = z.infer<typeof budgetRecordSchema>;

/** A budget as returned: with what was spent in its current period. */
export const budgetViewSchema = budgetRecordSchema.extend({
  /** Recorded model cost in the current period, in USD. */
  spent_usd: z.number(),
  /** First day of the current period (UTC, `YYYY-MM-DD`). */
  period_start: z.string(),
  /** When the current period ends and the spend counts from zero again. */
  resets_at: timestampSchema,
  /** Whether the cap is reached: runs it covers do not start, and running agents stop before their next model call. */
  exceeded: z.boolean(),
});
export type BudgetView = z.infer<typeof budgetViewSchema>;

export const budgetListSchema = z.object({ budgets: z.array(budgetViewSchema) });
export type BudgetList = z.infer<typeof budgetListSchema>;

/** A UTC calendar day, `YYYY-MM-DD`. */
export const daySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
  .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)), 'not a calendar day');

/** Query of `GET /api/automation/v1/usage`: the days to sum (UTC, both included); default the last 30. */
export const usageQuerySchema = z.strictObject({
  from: daySchema.optional(),
  to: daySchema.optional(),
});
export type UsageQuery = z.infer<typeof usageQuerySchema>;

/** Spend and tokens summed over a set of model calls. */
export const usageTotalsSchema = z.object({
  cost_usd: z.number(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  llm_calls: z.number().int(),
});
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

/** `GET /api/automation/v1/usage`: the org's recorded model spend over the days asked, summed four ways. */
export const usageSchema = z.object({
  from: z.string(),
  to: z.string(),
  total: usageTotalsSchema,
  /** One entry per day with spend, oldest first. */
  by_day: z.array(usageTotalsSchema.extend({ day: z.string() })),
  /** Most spent first. */
  by_user: z.array(usageTotalsSchema.extend({ user_id: z.string() })),
  /** Most spent first; `automation_id` `null` is spend of conversations started through the API. */
  by_automation: z.array(usageTotalsSchema.extend({ automation_id: z.string().nullable() })),
  by_model: z.array(usageTotalsSchema.extend({ model: z.string() })),
});
export type Usage = z.infer<typeof usageSchema>;

/**
 * One row of the spend ledger: what one user's model calls of one model cost in one automation
 * (or in API conversations: `automation_id` `null`) on one UTC day. Rows only grow.
 */
export const spendRowSchema = z.object({
  org_id: z.string(),
  user_id: z.string(),
  automation_id: z.string().nullable(),
  model: z.string(),
  day: z.string(),
  cost_usd: z.number(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  llm_calls: z.number().int(),
});
export type SpendRow = z.infer<typeof spendRowSchema>;
