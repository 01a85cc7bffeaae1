import type { BudgetInput, UsageQueryInput } from '../transport/types.js';
import type { CallOptions, Transport } from '../transport/transport.js';

/** Spend budgets and the usage report (`/api/automation/v1/budgets`, `/usage`). */
export function budgetsNamespace(transport: Transport) {
  return {
    /** The org's budgets, each with what it spent in its current period and whether it is exceeded. */
    list: (options?: CallOptions) => transport.call('GET /api/automation/v1/budgets', {}, options),
    /** Sets a cap (owners only): a new budget, or a new limit for the same scope, subject and period. */
    set: (input: BudgetInput, options?: CallOptions) => transport.call('PUT /api/automation/v1/budgets', { json: input }, options),
    /** Removes a budget (owners only). */
    delete: (id: string, options?: CallOptions) => transport.call('DELETE /api/automation/v1/budgets/{id}', { params: { id } }, options),
    /** What the org's model calls cost over a range of days, in total and by day, user, automation and model. */
    usage: (query: UsageQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/usage', { query }, options),
  };
}
