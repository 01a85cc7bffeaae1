/**
 * The storage port: raw repositories for each record. Adapters store and fetch; the core owns
 * validation, ids, timestamps and encryption. Every adapter runs the conformance suite in
 * `@agent-platform/testing` (`testStorageAdapter`).
 * @module
 */
import type { ApiKeyRecord } from '../schemas/api-key.js';
import type { ProviderTokensRecord } from '../schemas/provider-tokens.js';
import type { SettingsRecord } from '../schemas/settings.js';
import type { WebhookRecord } from '../schemas/webhook.js';

/** Thrown by an adapter when a write breaks a uniqueness rule (e.g. one source per org). */
export class StorageConflictError extends Error {
  override readonly name = 'StorageConflictError';
}

/** Thrown by an adapter when its backend cannot be reached; answered 503 so callers retry. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
}

export interface ListOptions {
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  items: T[];
  total: number;
}

/** One settings record per user. */
export interface SettingsRepository {
  get(userId: string): Promise<SettingsRecord | null>;
  /** Inserts or replaces the user's record. */
  put(record: SettingsRecord): Promise<void>;
}

/** One provider-token map per user. */
export interface ProviderTokensRepository {
  get(userId: string): Promise<ProviderTokensRecord | null>;
  /** Inserts or replaces the user's record. */
  put(record: ProviderTokensRecord): Promise<void>;
  delete(userId: string): Promise<void>;
}

export interface ApiKeysRepository {
  /** Throws {@link StorageConflictError} when the id or the hash exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<ApiKeyRecord | null>;
  getByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** The user's keys, oldest first. */
  listByUser(userId: string): Promise<ApiKeyRecord[]>;
  /** Records a use; no-op for an unknown id. */
  touch(id: string, at: string): Promise<void>;
  /** True when a key was deleted. */
  delete(id: string): Promise<boolean>;
}

export interface WebhooksRepository {
  /** Throws {@link StorageConflictError} when the org already has the source (or the id exists). */
  insert(record: WebhookRecord): Promise<void>;
  get(orgId: string, id: string): Promise<WebhookRecord | null>;
  getBySource(orgId: string, source: string): Promise<WebhookRecord | null>;
  /** The org's webhooks, oldest first (then by id). */
  list(orgId: string, options: ListOptions): Promise<ListResult<WebhookRecord>>;
  /** Replaces a stored record (same id and org); false when there is none. */
  update(record: WebhookRecord): Promise<boolean>;
  /** True when a webhook was deleted. */
  delete(orgId: string, id: string): Promise<boolean>;
}

/** The repositories, as seen inside and outside a transaction. */
export interface StorageRepositories {
  readonly settings: SettingsRepository;
  readonly providerTokens: ProviderTokensRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly webhooks: WebhooksRepository;
}

export interface StorageAdapter extends StorageRepositories {
  /** Adapter name, for logs (`memory`, `postgres`, ...). */
  readonly name: string;
  /**
   * Runs `fn` atomically: every write through `tx` lands, or none does when `fn` throws.
   * Concurrent transactions behave as if run one after another.
   */
  transaction<T>(fn: (tx: StorageRepositories) => Promise<T>): Promise<T>;
  /** Resolves when the backend is reachable (readiness); throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
