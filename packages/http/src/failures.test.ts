import { describe, expect, it } from 'vitest';
import { StorageUnavailableError, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { BINDINGS, startHarness } from '../test-support/harness.js';

/** Memory storage whose webhook repository fails the way a broken backend would. */
function failingStorage(error: Error): StorageAdapter {
  const storage = createMemoryStorage();
  const fail = async () => {
    throw error;
  };
  return {
    ...storage,
    transaction: storage.transaction.bind(storage),
    ping: fail,
    close: storage.close.bind(storage),
    webhooks: { insert: fail, get: fail, getBySource: fail, list: fail, update: fail, delete: fail },
  };
}

describe.each(BINDINGS)('backend failures on %s', (binding) => {
  it('answers 503 with Retry-After when storage is unavailable, and /ready says so', async () => {
    const api = await startHarness(binding, { storage: failingStorage(new StorageUnavailableError('connection refused')) });
    try {
      const response = await api.request('GET', '/api/automation/v1/webhooks');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect((await api.request('GET', '/ready', { as: null })).status).toBe(503);
      expect((await api.request('GET', '/health', { as: null })).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('answers 500 without the cause for an unexpected error, and logs the cause', async () => {
    const api = await startHarness(binding, { storage: failingStorage(new Error('disk on fire at /var/secret/path')) });
    try {
      const response = await api.request('GET', '/api/automation/v1/webhooks');
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ detail: 'Internal server error' });
      expect(api.logs.join('\n')).toContain('unhandled error');
    } finally {
      await api.close();
    }
  });
});
