/**
 * The per-test adapter lifecycle shared by the conformance groups.
 * @module
 */
import { afterEach, beforeEach } from 'vitest';
import type { AuditEntry, StorageAdapter } from '@agent-platform/core';

/** Builds a fresh adapter for one test; the suite closes it after the test. */
export type StorageAdapterFactory = () => Promise<StorageAdapter> | StorageAdapter;

export interface TestStorageAdapterOptions {
  /** How many transactions the concurrency tests start at once (default 20). */
  concurrency?: number;
  /** Per-test and per-hook timeout in milliseconds, for backends slower than vitest's default. */
  timeout?: number;
  /**
   * Overwrites a stored audit entry behind the adapter's back, as someone with write access to
   * the backend would (PostgreSQL: an SQL `UPDATE` of its row): afterwards the org's entry `seq`
   * reads as `entry`. Given, the audit group checks that verification names the edited entry
   * (or, when its hash was recomputed too, the one after it) as the first that does not hold.
   */
  tamperAuditEntry?: (orgId: string, seq: number, entry: AuditEntry) => Promise<void>;
}

/** What each conformance group receives. */
export interface SuiteContext {
  /** The adapter of the running test; only valid inside `it`. */
  readonly adapter: StorageAdapter;
  readonly concurrency: number;
  /** {@link TestStorageAdapterOptions.tamperAuditEntry}, when the adapter's test gives one. */
  readonly tamperAuditEntry?: TestStorageAdapterOptions['tamperAuditEntry'];
}

/** Registers the hooks that give every test its own adapter, and closes it afterwards. */
export function useAdapter(factory: StorageAdapterFactory, options: TestStorageAdapterOptions): SuiteContext {
  let current: StorageAdapter | undefined;

  beforeEach(async () => {
    current = await factory();
  }, options.timeout);

  afterEach(async () => {
    const adapter = current;
    current = undefined;
    await adapter?.close();
  }, options.timeout);

  return {
    get adapter(): StorageAdapter {
      if (!current) throw new Error('testStorageAdapter: the adapter is only available inside a test');
      return current;
    },
    concurrency: options.concurrency ?? 20,
    ...(options.tamperAuditEntry ? { tamperAuditEntry: options.tamperAuditEntry } : {}),
  };
}
