import { describe, expect, it } from 'vitest';
import type { SandboxRuntime, StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { checkReadiness } from './readiness.js';

const SECRET = 'postgres://admin:hunter2@db.internal:5432/agents';
const never = () => new Promise<never>(() => {});
const failing = async () => {
  throw new Error(`connect ECONNREFUSED ${SECRET}`);
};

function storage(overrides: Partial<StorageAdapter> = {}): StorageAdapter {
  const memory = createMemoryStorage();
  return { ...memory, transaction: memory.transaction.bind(memory), ...overrides };
}

const runtime = (ping?: () => Promise<void>): SandboxRuntime => ({ ...createProcessRuntime(), name: 'test', ...(ping ? { ping } : { ping: undefined }) });

describe('checkReadiness', () => {
  it('is ready with every check ok, or skipped where it does not apply', async () => {
    expect(await checkReadiness(storage(), null, false)).toEqual({
      ready: true,
      stopping: false,
      checks: {
        storage: { status: 'ok' },
        migrations: { status: 'skipped', reason: 'no schema to migrate' },
        runtime: { status: 'skipped', reason: 'no sandbox runtime' },
      },
    });
    const process = createProcessRuntime();
    expect((await checkReadiness(storage(), process, false)).checks.runtime).toEqual({ status: 'ok' });
    await process.close();
    expect((await checkReadiness(storage(), process, false)).checks.runtime).toEqual({ status: 'failed', reason: 'unreachable' });
    expect((await checkReadiness(storage(), runtime(), false)).checks.runtime).toEqual({ status: 'skipped', reason: 'the test runtime cannot be checked' });
  });

  it('names the failing check, without the error’s message', async () => {
    const result = await checkReadiness(storage({ ping: failing, migrationStatus: async () => ({ applied: 4, latest: 4 }) }), runtime(failing), false);
    expect(result).toEqual({
      ready: false,
      stopping: false,
      checks: {
        storage: { status: 'failed', reason: 'unreachable' },
        migrations: { status: 'skipped', reason: 'the storage is unreachable' },
        runtime: { status: 'failed', reason: 'unreachable' },
      },
    });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('fails when a migration is missing; a newer schema (a rolling deploy) is ready', async () => {
    const behind = await checkReadiness(storage({ migrationStatus: async () => ({ applied: 3, latest: 4 }) }), null, false);
    expect(behind.ready).toBe(false);
    expect(behind.checks.migrations).toEqual({ status: 'failed', reason: 'the schema is at migration 3 of 4: apply the migrations' });
    const ahead = await checkReadiness(storage({ migrationStatus: async () => ({ applied: 5, latest: 4 }) }), null, false);
    expect(ahead.checks.migrations).toEqual({ status: 'ok' });
    const broken = await checkReadiness(storage({ migrationStatus: failing }), null, false);
    expect(broken.checks.migrations).toEqual({ status: 'failed', reason: 'unreachable' });
  });

  it('fails a check that does not answer in time', async () => {
    const result = await checkReadiness(storage({ ping: never }), runtime(never), false, 50);
    expect(result.checks.storage).toEqual({ status: 'failed', reason: 'no answer within 50 ms' });
    expect(result.checks.runtime).toEqual({ status: 'failed', reason: 'no answer within 50 ms' });
  });

  it('is not ready while stopping, whatever the checks say', async () => {
    expect(await checkReadiness(storage(), null, true)).toMatchObject({ ready: false, stopping: true, checks: { storage: { status: 'ok' } } });
  });
});
