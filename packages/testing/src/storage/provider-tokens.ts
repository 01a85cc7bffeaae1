/**
 * Conformance: `providerTokens` repository.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { makeProviderTokensRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeProviderTokens(ctx: SuiteContext): void {
  describe('providerTokens', () => {
    it('get returns null for an unknown user', async () => {
      expect(await ctx.adapter.providerTokens.get(uniqueId('user'))).toBeNull();
    });

    it('put then get returns the record', async () => {
      const record = makeProviderTokensRecord({
        tokens: {
          github: { token: 'sealed:gh', host: null, user_id: null },
          gitlab: { token: 'sealed:gl', host: 'gitlab.example.com', user_id: 'u-1' },
        },
      });
      await ctx.adapter.providerTokens.put(record);
      expect(await ctx.adapter.providerTokens.get(record.user_id)).toEqual(record);
    });

    it('put replaces the token map: providers missing from the new record are gone', async () => {
      const first = makeProviderTokensRecord({
        tokens: {
          github: { token: 'sealed:gh', host: null, user_id: null },
          gitlab: { token: 'sealed:gl', host: null, user_id: null },
        },
      });
      await ctx.adapter.providerTokens.put(first);
      const second = makeProviderTokensRecord({
        user_id: first.user_id,
        tokens: { forgejo: { token: 'sealed:fj', host: 'code.example.org', user_id: null } },
        updated_at: '2025-02-01T00:00:00.000Z',
      });
      await ctx.adapter.providerTokens.put(second);
      expect(await ctx.adapter.providerTokens.get(first.user_id)).toEqual(second);
    });

    it('round-trips an empty token map', async () => {
      const record = makeProviderTokensRecord({ tokens: {} });
      await ctx.adapter.providerTokens.put(record);
      expect(await ctx.adapter.providerTokens.get(record.user_id)).toEqual(record);
    });

    it('keeps one record per user', async () => {
      const alice = makeProviderTokensRecord();
      const bob = makeProviderTokensRecord();
      await ctx.adapter.providerTokens.put(alice);
      await ctx.adapter.providerTokens.put(bob);
      expect(await ctx.adapter.providerTokens.get(alice.user_id)).toEqual(alice);
      expect(await ctx.adapter.providerTokens.get(bob.user_id)).toEqual(bob);
    });

    it("delete removes only that user's record", async () => {
      const alice = makeProviderTokensRecord();
      const bob = makeProviderTokensRecord();
      await ctx.adapter.providerTokens.put(alice);
      await ctx.adapter.providerTokens.put(bob);
      await ctx.adapter.providerTokens.delete(alice.user_id);
      expect(await ctx.adapter.providerTokens.get(alice.user_id)).toBeNull();
      expect(await ctx.adapter.providerTokens.get(bob.user_id)).toEqual(bob);
    });

    it('delete of an unknown user resolves', async () => {
      await expect(ctx.adapter.providerTokens.delete(uniqueId('user'))).resolves.toBeUndefined();
    });

    it('put after delete stores the record again', async () => {
      const record = makeProviderTokensRecord();
      await ctx.adapter.providerTokens.put(record);
      await ctx.adapter.providerTokens.delete(record.user_id);
      await ctx.adapter.providerTokens.put(record);
      expect(await ctx.adapter.providerTokens.get(record.user_id)).toEqual(record);
    });
  });
}
