import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

describe.each(BINDINGS)('API keys on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  it('creates a key shown once, which then authenticates as its creator', async () => {
    const created = await api.request('POST', '/api/keys', { json: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ id: expect.any(String), name: 'ci', org_id: 'acme', key: expect.stringMatching(/^ap_/) });
    expect(created.json.key.startsWith(created.json.prefix)).toBe(true);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const withNewKey = await api.request('GET', '/api/keys', { as: null, headers: { authorization: `Bearer ${created.json.key}` } });
    expect(withNewKey.status).toBe(200);
    expect(withNewKey.text).not.toContain(created.json.key);
    expect(withNewKey.json.keys.map((key: { name: string }) => key.name)).toContain('ci');
    for (const key of withNewKey.json.keys) expect(key).not.toHaveProperty('key');
    expect(JSON.stringify(await api.storage.apiKeys.get(created.json.id))).not.toContain(created.json.key);
  });

  it('creates a key from an empty body with a default name', async () => {
    const created = await api.request('POST', '/api/keys', { headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.json.name).toBe('API key');
  });

  it('lists only the caller’s keys', async () => {
    const listed = await api.request('GET', '/api/keys', { as: 'bob' });
    expect(listed.json.keys.every((key: { name: string }) => key.name !== 'ci')).toBe(true);
  });

  it('revokes a key (204), after which it no longer authenticates', async () => {
    const created = await api.request('POST', '/api/keys', { json: { name: 'temp' } });
    const revoked = await api.request('DELETE', `/api/keys/${created.json.id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const after = await api.request('GET', '/api/keys', { as: null, headers: { 'x-session-api-key': created.json.key } });
    expect(after.status).toBe(401);
  });

  it('answers 404 for an unknown key and for another user’s key', async () => {
    const created = await api.request('POST', '/api/keys', { json: { name: 'alice-only' } });
    expect((await api.request('DELETE', `/api/keys/${created.json.id}`, { as: 'bob' })).status).toBe(404);
    expect((await api.request('DELETE', `/api/keys/${created.json.id}`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('DELETE', '/api/keys/key_unknown')).status).toBe(404);
    expect((await api.request('GET', '/api/keys')).json.keys.some((key: { id: string }) => key.id === created.json.id)).toBe(true);
  });

  it('answers 422 for a bad name', async () => {
    const response = await api.request('POST', '/api/keys', { json: { name: '' } });
    expect(response.status).toBe(422);
    expect(response.json.detail[0].loc).toEqual(['body', 'name']);
  });
});
