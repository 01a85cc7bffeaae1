import { keyActor } from '../audit/audit-log.js';
import { PlatformError, notFound } from '../kernel/errors.js';
import { StorageConflictError } from '../ports/storage.js';
import type { Principal, Role } from '../schemas/principal.js';
import { requireRole, roleOf } from '../kernel/roles.js';
import { apiKeyCreateInputSchema, type ApiKeyList, type ApiKeyRecord, type ApiKeyView, type CreatedApiKey, type CurrentApiKey } from '../schemas/api-key.js';
import { parseInput } from '../kernel/validation.js';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from './api-key-material.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';

const toView = (record: ApiKeyRecord): ApiKeyView => ({
  id: record.id,
  name: record.name,
  prefix: record.prefix,
  org_id: record.org_id,
  role: record.role ?? 'owner',
  created_at: record.created_at,
  last_used_at: record.last_used_at,
});

export interface SeedApiKeyInput {
  userId: string;
  orgId: string;
  /** The key itself, chosen by the host (e.g. from configuration). At least 16 characters. */
  key: string;
  name?: string;
  /** Default `owner`. */
  role?: Role;
}

/** API keys belong to a user and act for the org they were created in. Only their hash is stored. */
export class ApiKeysService {
  constructor(private readonly context: ServiceContext) {}

  /** Creates a key; the answer is the only time the key is shown. */
  async create(principal: Principal, input: unknown): Promise<CreatedApiKey> {
    const { name, role } = parseInput(apiKeyCreateInputSchema, input === undefined ? {} : input);
    // A key never gives more than the key that made it has.
    if (role) requireRole(principal, role, `A key with the ${role} role`);
    const key = generateApiKey();
    const record = this.record({ ...principal, role: role ?? roleOf(principal) }, key, name);
    await this.context.storage.apiKeys.insert(record);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'api_key.created',
      target: { type: 'api_key', id: record.id },
      details: { name: record.name, role: record.role ?? 'owner', prefix: record.prefix },
    });
    return { ...toView(record), key };
  }

  async list(principal: Principal): Promise<ApiKeyList> {
    const records = await this.context.storage.apiKeys.listByUser(principal.userId);
    return { keys: records.map(toView) };
  }

  /**
   * The stored key a request authenticated with (`GET /api/keys/current`), given the key it
   * presented. 404 when that key is not one stored by the platform for the principal (a
   * host-provided authenticator, or no key).
   */
  async current(principal: Principal, apiKey: string | undefined): Promise<CurrentApiKey> {
    const record = apiKey ? await this.context.storage.apiKeys.getByHash(hashApiKey(apiKey)) : null;
    if (!record || record.user_id !== principal.userId || record.org_id !== principal.orgId) {
      throw new PlatformError('NOT_FOUND', 'The request was not authenticated with an API key stored by the platform');
    }
    // `api_key`: the platform's own keys. A sandbox session key never reaches here: it
    // authenticates only its conversation's agent-server routes.
    return { ...toView(record), user_id: record.user_id, auth_type: 'api_key' };
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    const record = await this.context.storage.apiKeys.get(id);
    if (!record || record.user_id !== principal.userId) throw notFound('API key');
    await this.context.storage.apiKeys.delete(id);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'api_key.revoked',
      target: { type: 'api_key', id },
      details: { name: record.name, prefix: record.prefix },
    });
  }

  /**
   * Registers a key the host chose (for seeded development keys). Idempotent for the same
   * principal; a key already registered for someone else is refused.
   */
  async seed(input: SeedApiKeyInput): Promise<ApiKeyView> {
    if (input.key.length < 16) throw new PlatformError('BAD_REQUEST', 'a seeded API key must be at least 16 characters');
    const existing = await this.context.storage.apiKeys.getByHash(hashApiKey(input.key));
    if (existing) {
      if (existing.user_id === input.userId && existing.org_id === input.orgId) {
        // The host's configuration says the role: a seeded key follows it.
        const role = input.role ?? 'owner';
        if ((existing.role ?? 'owner') !== role) {
          await this.context.storage.apiKeys.delete(existing.id);
          return this.seed(input);
        }
        return toView(existing);
      }
      throw new PlatformError('CONFLICT', 'that API key is already registered for another principal');
    }
    const record = this.record({ userId: input.userId, orgId: input.orgId, role: input.role ?? 'owner' }, input.key, input.name ?? 'seeded key');
    try {
      await this.context.storage.apiKeys.insert(record);
    } catch (error) {
      if (error instanceof StorageConflictError) return this.seed(input);
      throw error;
    }
    return toView(record);
  }

  private record(principal: Principal, key: string, name: string): ApiKeyRecord {
    return {
      id: this.context.ids.newId('key'),
      user_id: principal.userId,
      org_id: principal.orgId,
      name,
      prefix: apiKeyDisplayPrefix(key),
      key_hash: hashApiKey(key),
      role: roleOf(principal),
      created_at: nowIso(this.context),
      last_used_at: null,
    };
  }
}
