/**
 * Conformance: `githubLinks` repository. A link is identified by (kind, key, org); `findOrgs`
 * answers which orgs a GitHub delivery reaches.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { fixtureTime, makeGithubLinkRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

/** `findOrgs` answers in any order. */
function sorted(values: readonly string[]): string[] {
  return [...values].sort();
}

export function describeGithubLinks(ctx: SuiteContext): void {
  describe('githubLinks', () => {
    it('an org without links lists none, and unknown refs find no org', async () => {
      expect(await ctx.adapter.githubLinks.listByOrg(uniqueId('org'))).toEqual([]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: `nobody-${uniqueId()}` }])).toEqual([]);
      expect(await ctx.adapter.githubLinks.findOrgs([])).toEqual([]);
    });

    it('put then listByOrg and findOrgs return the link', async () => {
      const link = makeGithubLinkRecord({ kind: 'installation' });
      await ctx.adapter.githubLinks.put(link);
      expect(await ctx.adapter.githubLinks.listByOrg(link.org_id)).toEqual([link]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'installation', key: link.key }])).toEqual([link.org_id]);
    });

    it('put is idempotent: the same (kind, key, org) is one link, replaced by the latest put', async () => {
      const link = makeGithubLinkRecord();
      await ctx.adapter.githubLinks.put(link);
      await ctx.adapter.githubLinks.put(link);
      expect(await ctx.adapter.githubLinks.listByOrg(link.org_id)).toEqual([link]);
      const relinked = { ...link, created_at: fixtureTime(60) };
      await ctx.adapter.githubLinks.put(relinked);
      expect(await ctx.adapter.githubLinks.listByOrg(link.org_id)).toEqual([relinked]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: link.kind, key: link.key }])).toEqual([link.org_id]);
    });

    it('findOrgs returns each linked org once, across kinds and keys', async () => {
      const installation = makeGithubLinkRecord({ kind: 'installation' });
      const orgId = installation.org_id;
      const account = makeGithubLinkRecord({ org_id: orgId });
      const sameAccountElsewhere = makeGithubLinkRecord({ key: account.key });
      const unrelated = makeGithubLinkRecord();
      for (const link of [installation, account, sameAccountElsewhere, unrelated]) await ctx.adapter.githubLinks.put(link);
      const found = await ctx.adapter.githubLinks.findOrgs([
        { kind: 'installation', key: installation.key },
        { kind: 'account', key: account.key },
        { kind: 'account', key: account.key },
        { kind: 'account', key: `nobody-${uniqueId()}` },
      ]);
      expect(sorted(found)).toEqual(sorted([orgId, sameAccountElsewhere.org_id]));
      expect(found).toHaveLength(2);
    });

    it('findOrgs compares kinds and keys exactly', async () => {
      const installation = makeGithubLinkRecord({ kind: 'installation' });
      const account = makeGithubLinkRecord();
      await ctx.adapter.githubLinks.put(installation);
      await ctx.adapter.githubLinks.put(account);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: installation.key }])).toEqual([]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'installation', key: account.key }])).toEqual([]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: account.key.toUpperCase() }])).toEqual([]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: account.key.slice(0, -1) }])).toEqual([]);
    });

    it("listByOrg returns only the org's links, oldest first", async () => {
      const orgId = uniqueId('org');
      const second = makeGithubLinkRecord({ org_id: orgId, kind: 'installation', created_at: fixtureTime(20) });
      const first = makeGithubLinkRecord({ org_id: orgId, created_at: fixtureTime(10) });
      const third = makeGithubLinkRecord({ org_id: orgId, created_at: fixtureTime(30) });
      const elsewhere = makeGithubLinkRecord({ created_at: fixtureTime(15) });
      for (const link of [third, elsewhere, first, second]) await ctx.adapter.githubLinks.put(link);
      expect(await ctx.adapter.githubLinks.listByOrg(orgId)).toEqual([first, second, third]);
    });

    it("delete returns true and removes only that org's link", async () => {
      const link = makeGithubLinkRecord();
      const sameKeyElsewhere = makeGithubLinkRecord({ key: link.key });
      const kept = makeGithubLinkRecord({ org_id: link.org_id, kind: 'installation', created_at: fixtureTime(1) });
      for (const record of [link, sameKeyElsewhere, kept]) await ctx.adapter.githubLinks.put(record);
      expect(await ctx.adapter.githubLinks.delete(link.kind, link.key, link.org_id)).toBe(true);
      expect(await ctx.adapter.githubLinks.listByOrg(link.org_id)).toEqual([kept]);
      expect(await ctx.adapter.githubLinks.listByOrg(sameKeyElsewhere.org_id)).toEqual([sameKeyElsewhere]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: link.kind, key: link.key }])).toEqual([sameKeyElsewhere.org_id]);
    });

    it('delete returns false for an unknown link, another org, another kind, or a second time', async () => {
      const link = makeGithubLinkRecord({ kind: 'installation' });
      await ctx.adapter.githubLinks.put(link);
      expect(await ctx.adapter.githubLinks.delete('installation', `${link.key}0`, link.org_id)).toBe(false);
      expect(await ctx.adapter.githubLinks.delete('installation', link.key, uniqueId('org'))).toBe(false);
      expect(await ctx.adapter.githubLinks.delete('account', link.key, link.org_id)).toBe(false);
      expect(await ctx.adapter.githubLinks.listByOrg(link.org_id)).toEqual([link]);
      expect(await ctx.adapter.githubLinks.delete('installation', link.key, link.org_id)).toBe(true);
      expect(await ctx.adapter.githubLinks.delete('installation', link.key, link.org_id)).toBe(false);
    });

    it('a deleted link can be put again', async () => {
      const link = makeGithubLinkRecord();
      await ctx.adapter.githubLinks.put(link);
      await ctx.adapter.githubLinks.delete(link.kind, link.key, link.org_id);
      const again = { ...link, created_at: fixtureTime(5) };
      await ctx.adapter.githubLinks.put(again);
      expect(await ctx.adapter.githubLinks.listByOrg(link.org_id)).toEqual([again]);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: link.kind, key: link.key }])).toEqual([link.org_id]);
    });
  });
}
