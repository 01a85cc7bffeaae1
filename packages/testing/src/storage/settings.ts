/**
 * Conformance: `settings` repository.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { makeSettingsRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeSettings(ctx: SuiteContext): void {
  describe('settings', () => {
    it('get returns null for an unknown user', async () => {
      expect(await ctx.adapter.settings.get(uniqueId('user'))).toBeNull();
    });

    it('put then get returns the record', async () => {
      const record = makeSettingsRecord();
      await ctx.adapter.settings.put(record);
      expect(await ctx.adapter.settings.get(record.user_id)).toEqual(record);
    });

    it('put replaces the whole record rather than merging', async () => {
      const first = makeSettingsRecord({ secrets: { llm_api_key: 'sealed:a', search_api_key: 'sealed:b' } });
      await ctx.adapter.settings.put(first);
      const second = makeSettingsRecord({
        user_id: first.user_id,
        values: { language: 'fr', max_iterations: null },
        secrets: { sandbox_api_key: 'sealed:c' },
        mcp_config: null,
        updated_at: '2025-02-01T00:00:00.000Z',
      });
      await ctx.adapter.settings.put(second);
      expect(await ctx.adapter.settings.get(first.user_id)).toEqual(second);
    });

    it('keeps one record per user', async () => {
      const alice = makeSettingsRecord({ values: { language: 'en' } });
      const bob = makeSettingsRecord({ values: { language: 'de' } });
      await ctx.adapter.settings.put(alice);
      await ctx.adapter.settings.put(bob);
      await ctx.adapter.settings.put({ ...alice, values: { ...alice.values, language: 'es' } });
      expect((await ctx.adapter.settings.get(alice.user_id))?.values.language).toBe('es');
      expect(await ctx.adapter.settings.get(bob.user_id)).toEqual(bob);
    });

    it('round-trips empty secrets and a null mcp_config', async () => {
      const record = makeSettingsRecord({ secrets: {}, mcp_config: null });
      await ctx.adapter.settings.put(record);
      expect(await ctx.adapter.settings.get(record.user_id)).toEqual(record);
    });
  });
}
