import { afterIterator, type IterateOptions } from '../iteration/paging.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { AuditQueryInput } from '../transport/types.js';

/** `audit.iterate`'s options: the list's filters (not `limit` and `after`, which it sets), and the page size. */
export interface AuditIterateOptions extends IterateOptions, Omit<NonNullable<AuditQueryInput>, 'limit' | 'after'> {}

/**
 * The org's audit log (`/api/automation/v1/audit`): who changed what, oldest first, each entry
 * chained to the one before by its hash. Reading it needs the admin role.
 */
export function auditNamespace(transport: Transport) {
  const list = (query: AuditQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/audit', { query }, options);
  return {
    /**
     * A page of entries, oldest first, filtered by `action`, `actor`, `target_type`, `target_id`,
     * `since` (included) and `until` (excluded); pass the answer's `next_after` as `after` for
     * the next page (`null`: this was the last).
     */
    list,
    /** Every entry matching the filters, page by page (`after` each page's `next_after`). */
    iterate: ({ pageSize, signal, ...filters }: AuditIterateOptions = {}) =>
      afterIterator((page, call) => list({ ...filters, ...page }, call), { ...(pageSize === undefined ? {} : { pageSize }), ...(signal ? { signal } : {}) }),
    /**
     * Every entry matching the filters as NDJSON (one JSON entry per line), in a `Blob` of type
     * `application/x-ndjson`: `(await client.audit.export()).text()`.
     */
    export: (query: AuditQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/audit/export', { query }, options),
    /** Checks the whole chain: `valid`, how many entries were `checked`, and `broken_at`, the first entry whose number, link or hash does not hold. */
    verify: (options?: CallOptions) => transport.call('GET /api/automation/v1/audit/verify', {}, options),
  };
}
