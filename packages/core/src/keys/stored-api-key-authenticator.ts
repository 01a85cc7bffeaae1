import type { Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { StorageAdapter } from '../ports/storage.js';
import { hashApiKey } from './api-key-material.js';

export interface StoredApiKeyAuthenticatorOptions {
  storage: StorageAdapter;
  clock: Clock;
  /** How often `last_used_at` is written for one key at most, so a busy key does not write on every request. */
  touchIntervalMs?: number;
}

/**
 * The default {@link Authenticator}: looks the key's SHA-256 up in storage. Lookup is by hash,
 * an exact index match, so no key material is ever compared character by character.
 */
export function createStoredApiKeyAuthenticator(options: StoredApiKeyAuthenticatorOptions): Authenticator {
  const touchIntervalMs = options.touchIntervalMs ?? 60_000;
  const lastTouched = new Map<string, number>();

  return {
    async authenticate({ apiKey }) {
      if (!apiKey || apiKey.length > 512) return null;
      const record = await options.storage.apiKeys.getByHash(hashApiKey(apiKey));
      if (!record) return null;
      const now = options.clock.now();
      const previous = lastTouched.get(record.id) ?? (record.last_used_at ? Date.parse(record.last_used_at) : 0);
      if (now.getTime() - previous >= touchIntervalMs) {
        lastTouched.set(record.id, now.getTime());
        await options.storage.apiKeys.touch(record.id, now.toISOString());
      }
      return { userId: record.user_id, orgId: record.org_id, role: record.role ?? 'owner' };
    },
  };
}
