/**
 * Readiness (`platform.readiness()`): whether this process should get traffic and work, check by
 * check — the storage reachable, its schema migrated, the sandbox runtime reachable — and whether
 * it is stopping. Each check is bounded in time (an orchestrator's probe has a timeout of its own),
 * and its reason is a short text of the engine's, never an error's message, which could quote a
 * connection string or a path.
 * @module
 */
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { StorageAdapter } from '../ports/storage.js';

/** `skipped`: not applicable here (no runtime, no schema), or not checkable (the storage is down). */
export type ReadinessStatus = 'ok' | 'failed' | 'skipped';

export interface ReadinessCheck {
  status: ReadinessStatus;
  /** Why it failed or was skipped, in a few words. */
  reason?: string;
}

export interface PlatformReadiness {
  /** No check failed and no stop began. */
  ready: boolean;
  /** A stop began (`drain()` or `stop()`): no new runs are taken here, and traffic should go elsewhere. */
  stopping: boolean;
  checks: {
    /** The storage answers (`StorageAdapter.ping`). */
    storage: ReadinessCheck;
    /** Every migration this code knows is applied (`StorageAdapter.migrationStatus`). */
    migrations: ReadinessCheck;
    /** The sandbox runtime answers (`SandboxRuntime.ping`). */
    runtime: ReadinessCheck;
  };
}

/** Longest a check may take before it counts as failed. */
export const READINESS_CHECK_TIMEOUT_MS = 2_000;

const OK: ReadinessCheck = Object.freeze({ status: 'ok' });

/** Runs the checks (storage and runtime at once; the schema once the storage answered). */
export async function checkReadiness(
  storage: StorageAdapter,
  runtime: SandboxRuntime | null,
  stopping: boolean,
  timeoutMs = READINESS_CHECK_TIMEOUT_MS,
): Promise<PlatformReadiness> {
  const storageCheck = bounded(() => storage.ping(), timeoutMs);
  const runtimeCheck: Promise<ReadinessCheck> = !runtime
    ? Promise.resolve({ status: 'skipped', reason: 'no sandbox runtime' })
    : runtime.ping
      ? bounded(() => (runtime.ping as () => Promise<void>).call(runtime), timeoutMs)
      : Promise.resolve({ status: 'skipped', reason: `the ${runtime.name} runtime cannot be checked` });
  const checks = { storage: await storageCheck, migrations: await migrationsCheck(storage, await storageCheck, timeoutMs), runtime: await runtimeCheck };
  const failed = Object.values(checks).some((check) => check.status === 'failed');
  return { ready: !failed && !stopping, stopping, checks };
}

async function migrationsCheck(storage: StorageAdapter, storageCheck: ReadinessCheck, timeoutMs: number): Promise<ReadinessCheck> {
  if (!storage.migrationStatus) return { status: 'skipped', reason: 'no schema to migrate' };
  if (storageCheck.status !== 'ok') return { status: 'skipped', reason: 'the storage is unreachable' };
  let found: { applied: number; latest: number } | undefined;
  const check = await bounded(async () => {
    found = await (storage.migrationStatus as () => Promise<{ applied: number; latest: number }>).call(storage);
  }, timeoutMs);
  if (check.status !== 'ok' || !found) return check;
  // A newer schema (a rolling deploy whose new processes migrated first) counts as ready: failing
  // every old process at once would take the whole service out of rotation mid-deploy.
  if (found.applied >= found.latest) return OK;
  return { status: 'failed', reason: `the schema is at migration ${found.applied} of ${found.latest}: apply the migrations` };
}

/** `ok` when `check` resolves within `timeoutMs`; `failed` (unreachable, or timed out) otherwise. */
async function bounded(check: () => Promise<void>, timeoutMs: number): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'failed', reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([
      check().then(
        () => OK,
        (): ReadinessCheck => ({ status: 'failed', reason: 'unreachable' }),
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
