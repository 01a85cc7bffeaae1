import { createMemoryStorage } from '@agent-platform/storage-memory';
import { makeSubscriptionRecord } from '@agent-platform/testing';
import { describe, expect, it } from 'vitest';
import { noopLogger, randomIdGenerator, StorageUnavailableError, systemClock, type StorageAdapter } from '@agent-platform/core';
import { OutboundEvents } from './outbound-events.js';

describe('outbound events while the storage is briefly away', () => {
  it('a run’s message is stored once the storage answers again, not lost', async () => {
    const storage = createMemoryStorage();
    const subscription = makeSubscriptionRecord({ org_id: 'acme', event_types: ['run.completed'], enabled: true });
    await storage.subscriptions.insert(subscription);
    let refusals = 2;
    const flaky = {
      ...storage,
      outboundMessages: {
        ...storage.outboundMessages,
        insertMany: async (messages: Parameters<StorageAdapter['outboundMessages']['insertMany']>[0]) => {
          if (refusals-- > 0) throw new StorageUnavailableError('the database is restarting');
          return storage.outboundMessages.insertMany(messages);
        },
      },
    } as StorageAdapter;
    const events = new OutboundEvents({ storage: flaky, clock: systemClock, ids: randomIdGenerator, logger: noopLogger });
    events.emit('acme', 'run.completed', { id: 'run_1' });
    await events.flush();
    const stored = await storage.outboundMessages.listBySubscription('acme', subscription.id, { limit: 10, offset: 0 });
    expect(stored.items.map((message) => message.event_type)).toEqual(['run.completed']);
    expect(refusals).toBe(-1);
  });
});
