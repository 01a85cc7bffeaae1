/**
 * A request for work past a spend cap, answered at once: 429 (`BUDGET_EXCEEDED`) with the cap and
 * the figures, and `Retry-After` at the cap's reset.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import { PlatformError } from '../kernel/errors.js';
import { describeBreach, type Spender } from '../spend/spend-control.js';

/** Throws 429 when a budget covering `spender` is spent. */
export async function requireBudget(context: ServiceContext, spender: Spender): Promise<void> {
  const breach = await context.spend.breachOf(spender);
  if (!breach) return;
  const retryAfterSeconds = (breach.resetsAt.getTime() - context.clock.now().getTime()) / 1000;
  throw new PlatformError('BUDGET_EXCEEDED', describeBreach(breach), { retryAfterSeconds });
}
