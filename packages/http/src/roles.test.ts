/**
 * Roles, route by route from the route table (a new route without a role fails here): every
 * route that takes credentials declares the least role it needs; a viewer's key gets 403 on
 * every route above viewer — before its input is judged, naming both roles — and not on the
 * others; a member's key gets 403 on the admin routes; a member cannot change another member's
 * automation, an admin can; a key never makes a stronger key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialOf } from './routing/define-route.js';
import { allRoutes } from './routes/route-table.js';
import { startHarness, type Harness } from '../test-support/harness.js';

const credentialed = allRoutes().filter((route) => credentialOf(route) !== 'none');
/** A concrete path for a route's template (ids no record has: the role is checked before the record is looked for). */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('roles', () => {
  let api: Harness;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    api = await startHarness('fastify');
    for (const role of ['viewer', 'member', 'admin'] as const) {
      const created = await api.request('POST', '/api/keys', { json: { name: role, role } });
      expect(created.status).toBe(201);
      keys[role] = created.json.key;
    }
  });
  afterAll(() => api.close());

  const as = (role: string, method: string, path: string, json?: unknown) =>
    api.request(method as never, path, { as: null, headers: { authorization: `Bearer ${keys[role]}` }, ...(json === undefined ? {} : { json }) } as never);

  it('every route that takes credentials declares its role', () => {
    expect(credentialed.length).toBeGreaterThan(50);
    expect(credentialed.filter((route) => !route.role).map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('a viewer gets 403 above viewer, naming the role needed, and never on a viewer route', async () => {
    for (const route of credentialed) {
      const response = await as('viewer', route.method, concrete(route.path));
      if (route.role === 'viewer') expect(response.status, `${route.method} ${route.path}`).not.toBe(403);
      else {
        expect(response.status, `${route.method} ${route.path}`).toBe(403);
        expect(response.json.detail).toBe(`This needs the ${route.role} role; this key has viewer`);
      }
    }
  });

  it('a member gets 403 on the admin routes only', async () => {
    for (const route of credentialed.filter((one) => one.role !== 'viewer')) {
      const status = (await as('member', route.method, concrete(route.path))).status;
      if (route.role === 'admin' || route.role === 'owner') expect(status, `${route.method} ${route.path}`).toBe(403);
      else expect(status, `${route.method} ${route.path}`).not.toBe(403);
    }
  });

  it("a member changes their own automations, not another member's; an admin changes any", async () => {
    // Bob (same org) gets a member key too.
    const bobs = await api.request('POST', '/api/keys', { as: 'bob', json: { name: 'bob member', role: 'member' } });
    keys.bobMember = bobs.json.key;
    keys.bobAdmin = (await api.request('POST', '/api/keys', { as: 'bob', json: { name: 'bob admin', role: 'admin' } })).json.key;
    const automation = { name: 'Mine', trigger: { type: 'event', source: 'github', on: 'push' }, instructions: 'go' };
    const mine = await as('member', 'POST', '/api/automation/v1', automation);
    expect(mine.status).toBe(201);
    expect((await as('member', 'PATCH', `/api/automation/v1/${mine.json.id}`, { name: 'Mine, renamed' })).status).toBe(200);
    const refused = await as('bobMember', 'PATCH', `/api/automation/v1/${mine.json.id}`, { name: 'Taken over' });
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toMatch(/^Changing another member's automation needs the admin role; this key has member/);
    expect((await as('bobMember', 'DELETE', `/api/automation/v1/${mine.json.id}`)).status).toBe(403);
    expect((await as('bobAdmin', 'PATCH', `/api/automation/v1/${mine.json.id}`, { name: 'Fixed by an admin' })).status).toBe(200);
    expect((await api.request('GET', `/api/automation/v1/${mine.json.id}`)).json.name).toBe('Fixed by an admin');
  });

  it('a key never makes a stronger key', async () => {
    const response = await as('member', 'POST', '/api/keys', { name: 'escalate', role: 'admin' });
    expect(response.status).toBe(403);
    expect(response.json.detail).toBe('A key with the admin role needs the admin role; this key has member');
    expect((await as('member', 'GET', '/api/keys/current')).json).toMatchObject({ role: 'member' });
  });
});
