import { describe, expect, it } from 'vitest';
import type { GithubDeliveryInfo } from './github-delivery.js';
import { GithubOrgCache } from './github-org-cache.js';

const delivery = (accounts: string[], installationId: number | null = null): GithubDeliveryInfo => ({
  event: 'issues',
  eventKey: 'issues.opened',
  payload: {},
  payloadJson: '{}',
  installationId,
  accounts,
});

function setup(ttlMs = 5_000, maxEntries = 10_000) {
  let now = 0;
  const lookups: string[][] = [];
  const links = new Map<string, string[]>([['octocat', ['acme']]]);
  let gate: Promise<void> | null = null;
  const cache = new GithubOrgCache(
    async (info) => {
      lookups.push([...info.accounts]);
      if (gate) await gate;
      return info.accounts.flatMap((account) => links.get(account) ?? []);
    },
    { now: () => new Date(now) },
    { ttlMs, maxEntries },
  );
  return {
    cache,
    lookups,
    links,
    advance: (ms: number) => (now += ms),
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

describe('GithubOrgCache', () => {
  it('looks the links up once per installation and accounts, then answers from memory until ttlMs has passed', async () => {
    const { cache, lookups, advance } = setup();
    expect(await cache.resolve(delivery(['octocat']))).toEqual(['acme']);
    expect(await cache.resolve(delivery(['octocat']))).toEqual(['acme']);
    expect(await cache.resolve(delivery(['octocat'], 42))).toEqual(['acme']);
    expect(lookups).toHaveLength(2);
    advance(5_000);
    await cache.resolve(delivery(['octocat']));
    expect(lookups).toHaveLength(3);
  });

  it('reads afresh after invalidateAll, and does not keep a lookup that began before it', async () => {
    const { cache, lookups, links, hold } = setup();
    expect(await cache.resolve(delivery(['octocat']))).toEqual(['acme']);
    links.set('octocat', ['acme', 'globex']);
    cache.invalidateAll();
    expect(await cache.resolve(delivery(['octocat']))).toEqual(['acme', 'globex']);
    cache.invalidateAll();
    const release = hold();
    const stale = cache.resolve(delivery(['octocat']));
    links.set('octocat', []);
    cache.invalidateAll();
    release();
    expect(await stale).toEqual([]);
    const before = lookups.length;
    await cache.resolve(delivery(['octocat']));
    expect(lookups.length).toBe(before + 1);
  });

  it('keeps at most maxEntries answers, dropping the least recently used', async () => {
    const { cache, lookups } = setup(5_000, 2);
    await cache.resolve(delivery(['a']));
    await cache.resolve(delivery(['b']));
    await cache.resolve(delivery(['a']));
    await cache.resolve(delivery(['c']));
    expect(lookups).toHaveLength(3);
    await cache.resolve(delivery(['a']));
    expect(lookups).toHaveLength(3);
    await cache.resolve(delivery(['b']));
    expect(lookups).toHaveLength(4);
  });
});
