import type { OverviewQueryInput } from '../transport/types.js';
import type { CallOptions, Transport } from '../transport/transport.js';

/** The console's overview of the org's runs (`/api/automation/v1/overview`); spend by day is `budgets.usage`. */
export function overviewNamespace(transport: Transport) {
  return {
    /**
     * The org's runs created in `[from, to)` (default the last 7 days), counted by status per
     * `bucket` (`hour` or `day`, UTC), with the success rate, p50/p95 duration, the queue now and
     * the automations failing most.
     */
    get: (query: OverviewQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/overview', { query }, options),
  };
}
