import { cursorIterator, type IterateOptions } from '../iteration/paging.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { CursorQueryInput, SandboxStartInput } from '../transport/types.js';
import { batched, oneById } from './batch.js';

/** The caller's sandboxes (`/api/v1/sandboxes`). */
export function sandboxesNamespace(transport: Transport) {
  const search = (query: CursorQueryInput = {}, options?: CallOptions) => transport.call('GET /api/v1/sandboxes/search', { query }, options);
  const getMany = (ids: readonly string[], options?: CallOptions) =>
    batched(ids, (chunk) => transport.call('GET /api/v1/sandboxes', { query: { id: chunk } }, options));
  return {
    /** A page of the caller's sandboxes, newest first (`page_id`, `limit` 1–100). */
    search,
    /** Every sandbox of the caller, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(search, options),
    /** Sandboxes by id, in order; `null` for one the caller cannot see. Any number of ids (sent 100 at a time). */
    getMany,
    /** One sandbox; a 404 `AgentPlatformError` when the caller has none with that id. */
    get: (id: string, options?: CallOptions) => oneById(transport.url('GET /api/v1/sandboxes'), 'Sandbox', getMany, id, options),
    /** Starts a sandbox from a spec (the default spec when none is named); answers when it runs. */
    start: (input: SandboxStartInput = {}, options?: CallOptions) => transport.call('POST /api/v1/sandboxes', { json: input }, options),
    /** Freezes everything in it. */
    pause: (id: string, options?: CallOptions) => transport.call('POST /api/v1/sandboxes/{id}/pause', { params: { id }, json: {} }, options),
    resume: (id: string, options?: CallOptions) => transport.call('POST /api/v1/sandboxes/{id}/resume', { params: { id }, json: {} }, options),
    /** Deletes it and everything in it. */
    delete: (id: string, options?: CallOptions) => transport.call('DELETE /api/v1/sandboxes/{id}', { params: { id } }, options),
  };
}

/** The specs sandboxes can be started from (`/api/v1/sandbox-specs/search`); the first is the default. */
export function sandboxSpecsNamespace(transport: Transport) {
  const search = (query: CursorQueryInput = {}, options?: CallOptions) => transport.call('GET /api/v1/sandbox-specs/search', { query }, options);
  return {
    search,
    /** Every spec, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(search, options),
  };
}
