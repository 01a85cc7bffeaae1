import { cursorIterator, type IterateOptions } from '../iteration/paging.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { CustomSecretCreateInput, CustomSecretSearchQueryInput, CustomSecretUpdateInput } from '../transport/types.js';

/** The caller's custom secrets one by one (`/api/v1/secrets`): names and descriptions come back, values never do. */
export function secretsNamespace(transport: Transport) {
  const list = (query: CustomSecretSearchQueryInput = {}, options?: CallOptions) => transport.call('GET /api/v1/secrets/search', { query }, options);
  return {
    /** A page of secrets by name (`name__contains`, `page_id`, `limit` 1–100), with `next_page_id`. */
    list,
    /** Every secret of the caller, by name, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(list, options),
    /** Stores a secret (the agent's commands see it as the environment variable `name`); a 409 `AgentPlatformError` when the name is taken. */
    create: (input: CustomSecretCreateInput, options?: CallOptions) => transport.call('POST /api/v1/secrets', { json: input }, options),
    /** Renames (`name`, default the current one) and sets the description (omitted or `null` clears it); the value is kept. */
    update: (name: string, input: Partial<CustomSecretUpdateInput>, options?: CallOptions) =>
      transport.call('PUT /api/v1/secrets/{name}', { params: { name }, json: { ...input, name: input.name ?? name } }, options),
    /** Deletes a secret (a 404 `AgentPlatformError` for an unknown name). */
    delete: (name: string, options?: CallOptions) => transport.call('DELETE /api/v1/secrets/{name}', { params: { name } }, options),
  };
}
