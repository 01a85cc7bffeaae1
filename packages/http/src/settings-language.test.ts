/**
 * `language` at settings save: a BCP 47 tag, stored canonical — every value OpenHands' UI offers
 * among them — or none (`""`, `null`); anything else is a 422 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

/** The languages OpenHands' settings page offers (its `AvailableLanguages`). */
const OPENHANDS_LANGUAGES = ['en', 'ja', 'zh-CN', 'zh-TW', 'ko-KR', 'no', 'it', 'pt', 'es', 'ar', 'fr', 'tr', 'de', 'uk', 'ca'];

describe.each(BINDINGS)('the language setting on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  const store = (language: unknown) => api.request('POST', '/api/settings', { json: { language } });
  const stored = async () => (await api.request('GET', '/api/settings')).json.language;

  it("takes every language OpenHands' UI offers, as sent", async () => {
    for (const language of OPENHANDS_LANGUAGES) {
      expect((await store(language)).status).toBe(200);
      expect(await stored()).toBe(language);
    }
  });

  it('stores a tag canonical; "" and null are none', async () => {
    expect((await store('pt-br')).status).toBe(200);
    expect(await stored()).toBe('pt-BR');
    expect((await store('  de-AT ')).status).toBe(200);
    expect(await stored()).toBe('de-AT');
    expect((await store('')).status).toBe(200);
    expect(await stored()).toBeNull();
    expect((await store('de')).status).toBe(200);
    expect((await store(null)).status).toBe(200);
    expect(await stored()).toBeNull();
  });

  it('refuses what is not a BCP 47 tag with a 422 naming the field, keeping the stored one', async () => {
    expect((await store('fr')).status).toBe(200);
    for (const language of ['German', 'en_US!', 'de-', 'x'.repeat(65), 42]) {
      const response = await store(language);
      expect(response.status).toBe(422);
      expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'language'] })]);
    }
    expect((await store('German')).json.detail[0].msg).toBe('language must be a BCP 47 language tag, such as en, de, pt-BR or zh-CN');
    expect(await stored()).toBe('fr');
  });
});
