import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialOf } from './routing/define-route.js';
import { allRoutes } from './handler.js';
import { BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';

const authenticated = allRoutes().filter((route) => credentialOf(route) !== 'none');

describe.each(BINDINGS)('authentication on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  it.each(authenticated.map((route) => [route.method, route.path]))('%s %s answers 401 without credentials', async (method, path) => {
    const response = await api.request(method, path.replaceAll(/\{[^}]+\}/g, 'x'), {
      as: null,
      json: method === 'GET' || method === 'DELETE' ? undefined : {},
    });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ detail: expect.stringMatching(/Missing API key/) });
  });

  it.each(authenticated.map((route) => [route.method, route.path]))('%s %s answers 401 with an unknown key', async (method, path) => {
    const response = await api.request(method, path.replaceAll(/\{[^}]+\}/g, 'x'), {
      as: null,
      headers: { authorization: 'Bearer not-a-real-key-000000000' },
    });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ detail: 'Invalid API key' });
  });

  it('says what is wrong with an Authorization header without "Bearer " (a bare key, another scheme), never echoing it', async () => {
    const bare = await api.request('GET', '/api/keys', { as: null, headers: { authorization: KEYS.alice } });
    expect(bare.status).toBe(401);
    expect(bare.json.detail).toBe('The Authorization header holds no scheme: send "Authorization: Bearer <API key>", with "Bearer " before the key');
    const basic = await api.request('GET', '/api/keys', { as: null, headers: { authorization: `Basic ${btoa(`alice:${KEYS.alice}`)}` } });
    expect(basic.status).toBe(401);
    expect(basic.json.detail).toBe('The Authorization header uses the "Basic" scheme: send "Authorization: Bearer <API key>"');
    expect(JSON.stringify([bare.json, basic.json])).not.toContain(KEYS.alice);
  });

  it('accepts X-Session-API-Key and Authorization: Bearer on every kind of endpoint', async () => {
    for (const path of ['/api/keys', '/api/automation/v1/webhooks']) {
      expect((await api.request('GET', path, { as: null, headers: { 'x-session-api-key': KEYS.alice } })).status).toBe(200);
      expect((await api.request('GET', path, { as: null, headers: { authorization: `Bearer ${KEYS.alice}` } })).status).toBe(200);
      expect((await api.request('GET', path, { as: null, headers: { authorization: `bearer ${KEYS.alice}` } })).status).toBe(200);
    }
  });

  it('does not take a key from a malformed Authorization header', async () => {
    const response = await api.request('GET', '/api/keys', { as: null, headers: { authorization: `Basic ${KEYS.alice}` } });
    expect(response.status).toBe(401);
  });

  it('serves /health, /ready, their /health/* names and /openapi.json without credentials', async () => {
    expect((await api.request('GET', '/health', { as: null })).json).toEqual({ status: 'ok' });
    expect((await api.request('GET', '/health/live', { as: null })).json).toEqual({ status: 'ok' });
    expect((await api.request('GET', '/ready', { as: null })).json).toMatchObject({ status: 'ready' });
    expect((await api.request('GET', '/health/ready', { as: null })).json).toMatchObject({ status: 'ready' });
    expect((await api.request('GET', '/openapi.json', { as: null })).status).toBe(200);
  });
});
