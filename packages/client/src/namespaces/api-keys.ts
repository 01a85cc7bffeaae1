import type { ApiKeyCreateInput } from '../transport/types.js';
import type { CallOptions, Transport } from '../transport/transport.js';

/** The caller's API keys (`/api/keys`). */
export function apiKeysNamespace(transport: Transport) {
  return {
    /** Creates a key; `key` is in this answer only, so keep it now. */
    create: (input: ApiKeyCreateInput = {}, options?: CallOptions) => transport.call('POST /api/keys', { json: input }, options),
    /** The caller's keys (prefixes only, never the keys). */
    list: (options?: CallOptions) => transport.call('GET /api/keys', {}, options),
    /** The key this client authenticates with (`auth_type: 'api_key'`, never the key itself); a 404 for a key the platform did not store. */
    current: (options?: CallOptions) => transport.call('GET /api/keys/current', {}, options),
    /** Revokes a key: requests with it answer 401 from now on. */
    revoke: (id: string, options?: CallOptions) => transport.call('DELETE /api/keys/{id}', { params: { id } }, options),
  };
}
