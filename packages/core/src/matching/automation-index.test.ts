import { describe, expect, it } from 'vitest';
import { AutomationIndex, type AutomationRecord, type Clock } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { makeAutomationRecord } from '@agent-platform/testing/fixtures';

function movableClock(): Clock & { advance(ms: number): void } {
  let now = Date.parse('2026-01-01T00:00:00Z');
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

const githubAutomation = (on: string): AutomationRecord =>
  makeAutomationRecord({ org_id: 'acme', enabled: true, trigger: { type: 'event', source: 'github', on, filter: null } });

describe('AutomationIndex', () => {
  it('caches per org and source, and sees local changes at once through invalidate()', async () => {
    const storage = createMemoryStorage();
    const index = new AutomationIndex(storage, movableClock());
    await storage.automations.insert(githubAutomation('push'));
    expect((await index.get('acme', 'github')).size).toBe(1);
    await storage.automations.insert(githubAutomation('issues.opened'));
    expect((await index.get('acme', 'github')).size).toBe(1);
    index.invalidate('acme', 'github');
    expect((await index.get('acme', 'github')).size).toBe(2);
    expect((await index.get('other', 'github')).size).toBe(0);
  });

  it('rebuilds a stale index in the background, answering from the old one meanwhile', async () => {
    const storage = createMemoryStorage();
    const clock = movableClock();
    const index = new AutomationIndex(storage, clock, { ttlMs: 1000 });
    await storage.automations.insert(githubAutomation('push'));
    const first = await index.get('acme', 'github');
    await storage.automations.insert(githubAutomation('release.published'));
    clock.advance(1500);
    expect(index.get('acme', 'github')).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await index.get('acme', 'github')).size).toBe(2);
  });

  it('does not cache a build that an invalidation overtook', async () => {
    const storage = createMemoryStorage();
    const index = new AutomationIndex(storage, movableClock());
    const building = index.get('acme', 'github');
    await storage.automations.insert(githubAutomation('push'));
    index.invalidate('acme', 'github');
    await building;
    expect((await index.get('acme', 'github')).size).toBe(1);
  });
});
