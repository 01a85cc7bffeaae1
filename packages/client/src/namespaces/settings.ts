import type { ProviderTokensInput, SettingsInput, UnsetProviderTokensInput } from '../transport/types.js';
import type { CallOptions, Transport } from '../transport/transport.js';

/** The caller's settings (`/api/settings`). Secrets go in, and never come back out. */
export function settingsNamespace(transport: Transport) {
  return {
    /**
     * Stores settings. Secret fields, `llm_model` and `llm_base_url` keep their stored value when
     * omitted or `null`; `""` clears a secret; every other field is replaced.
     */
    store: (settings: SettingsInput, options?: CallOptions) => transport.call('POST /api/settings', { credential: 'session', json: settings }, options),
    /** The settings with secrets masked (`llm_api_key_set`, ...). A 404 `AgentPlatformError` when none are stored. */
    get: (options?: CallOptions) => transport.call('GET /api/settings', { credential: 'session' }, options),
  };
}

/** Git-provider tokens (`/api/add-git-providers`, `/api/unset-provider-tokens`). */
export function gitProvidersNamespace(transport: Transport) {
  return {
    /** Stores tokens per provider; an entry with an empty token keeps the stored token and takes the new host. */
    store: (input: ProviderTokensInput, options?: CallOptions) =>
      transport.call('POST /api/add-git-providers', { credential: 'session', json: input }, options),
    /** Removes every token, or only those of `providers`. */
    unset: (input: UnsetProviderTokensInput = {}, options?: CallOptions) =>
      transport.call('POST /api/unset-provider-tokens', { credential: 'session', json: input }, options),
  };
}
