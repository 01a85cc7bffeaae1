import { cursorIterator, type IterateOptions } from '../paging.js';
import type { CallOptions, Transport } from '../transport.js';
import type { CursorQueryInput, Sandbox, SandboxPage, SandboxSpecPage, SandboxStartInput, SuccessResponse } from '../types.js';
import { batched, oneById } from './batch.js';

/** The caller's sandboxes (`/api/v1/sandboxes`). */
export function sandboxesNamespace(transport: Transport) {
  const search = (query: CursorQueryInput = {}, options?: CallOptions) => transport.call<SandboxPage>('searchSandboxes', { query }, options);
  const getMany = (ids: readonly string[], options?: CallOptions) =>
    batched(ids, (chunk) => transport.call<(Sandbox | null)[]>('batchGetSandboxes', { query: { id: chunk } }, options));
  return {
    /** A page of the caller's sandboxes, newest first (`page_id`, `limit` 1–100). */
    search,
    /** Every sandbox of the caller, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(search, options),
    /** Sandboxes by id, in order; `null` for one the caller cannot see. Any number of ids (sent 100 at a time). */
    getMany,
    /** One sandbox; a 404 `AgentPlatformError` when the caller has none with that id. */
    get: (id: string, options?: CallOptions) => oneById(transport, 'batchGetSandboxes', 'Sandbox', getMany, id, options),
    /** Starts a sandbox from a spec (the default spec when none is named); answers when it runs. */
    start: (input: SandboxStartInput = {}, options?: CallOptions) => transport.call<Sandbox>('startSandbox', { json: input }, options),
    /** Freezes everything in it. */
    pause: (id: string, options?: CallOptions) => transport.call<SuccessResponse>('pauseSandbox', { params: { id }, json: {} }, options),
    resume: (id: string, options?: CallOptions) => transport.call<SuccessResponse>('resumeSandbox', { params: { id }, json: {} }, options),
    /** Deletes it and everything in it. */
    delete: (id: string, options?: CallOptions) => transport.call<SuccessResponse>('deleteSandbox', { params: { id } }, options),
  };
}

/** The specs sandboxes can be started from (`/api/v1/sandbox-specs/search`); the first is the default. */
export function sandboxSpecsNamespace(transport: Transport) {
  const search = (query: CursorQueryInput = {}, options?: CallOptions) => transport.call<SandboxSpecPage>('searchSandboxSpecs', { query }, options);
  return {
    search,
    /** Every spec, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(search, options),
  };
}
