/**
 * What the run queue and change feed suites run against: one backend shared by several adapters,
 * as processes sharing one database would each open their own.
 * @module
 */
import { afterEach, beforeEach } from 'vitest';
import type { StorageAdapter } from '@agent-platform/core';

export interface SharedBackend {
  /**
   * An adapter over the shared backend, as another process would open it: its own connections
   * where the backend has them (PostgreSQL), or the same adapter where the backend lives in one
   * process (memory). Callable several times.
   */
  open(): Promise<StorageAdapter>;
  /** Closes every adapter `open` handed out, then the backend. */
  close(): Promise<void>;
}

/**
 * A backend for one test. Its runs table must start empty: the queue claims across every org, so
 * runs left by other tests would be claimed too.
 */
export type SharedBackendFactory = () => Promise<SharedBackend>;

export interface TestRunQueueOptions {
  /** Per-test and per-hook timeout in milliseconds, for backends slower than vitest's default. */
  timeout?: number;
  /** How many claims the concurrency tests start at once (default 12). */
  concurrency?: number;
}

export interface QueueSuiteContext {
  /** The backend of the running test; only valid inside `it`. */
  readonly backend: SharedBackend;
  readonly concurrency: number;
}

export function useSharedBackend(factory: SharedBackendFactory, options: TestRunQueueOptions): QueueSuiteContext {
  let current: SharedBackend | undefined;
  beforeEach(async () => {
    current = await factory();
  }, options.timeout);
  afterEach(async () => {
    const backend = current;
    current = undefined;
    await backend?.close();
  }, options.timeout);
  return {
    get backend(): SharedBackend {
      if (!current) throw new Error('testRunQueue: the backend is only available inside a test');
      return current;
    },
    concurrency: options.concurrency ?? 12,
  };
}
