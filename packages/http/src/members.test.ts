/**
 * Members over HTTP: admins list the org's memberships (oldest first, never another org's);
 * owners change a member's role, recorded in the audit log, but never their own (409, so the org
 * keeps the owner who acted); unknown fields are 422, unknown members 404 — another org's too.
 */
import type { MembershipRecord } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../test-support/harness.js';

const MEMBERS = '/api/automation/v1/members';

const membership = (user_id: string, role: MembershipRecord['role'], created_at: string, org_id = 'acme'): MembershipRecord => ({
  org_id,
  user_id,
  role,
  email: `${user_id.replace('oidc:', '')}@${org_id}.test`,
  created_at,
});

describe('members', () => {
  let api: Harness;
  const keys: Record<string, string> = {};
  // Alice (the harness's owner key) is a member too, so her own role is one she could try to change.
  const alice = membership('alice', 'owner', '2030-01-01T00:00:00.000Z');
  const ada = membership('oidc:ada', 'member', '2030-01-02T00:00:00.000Z');
  const vera = membership('oidc:vera', 'viewer', '2030-01-02T00:00:00.000Z');
  const mallory = membership('oidc:mallory', 'owner', '2030-01-01T00:00:00.000Z', 'evil');

  beforeAll(async () => {
    api = await startHarness('fastify');
    for (const record of [vera, ada, alice, mallory]) await api.platform.storage.memberships.insertOrGet(record);
    for (const role of ['member', 'admin'] as const) {
      const created = await api.request('POST', '/api/keys', { json: { name: role, role } });
      expect(created.status).toBe(201);
      keys[role] = created.json.key;
    }
  });
  afterAll(() => api.close());

  const as = (role: string, method: string, path: string, json?: unknown) =>
    api.request(method, path, { as: null, headers: { authorization: `Bearer ${keys[role]}` }, ...(json === undefined ? {} : { json }) });

  it("lists the org's members to an admin, oldest first, user ids breaking ties", async () => {
    const listed = await as('admin', 'GET', MEMBERS);
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({ members: [alice, ada, vera] });
  });

  it('refuses the list to a member, and a role change to an admin', async () => {
    const list = await as('member', 'GET', MEMBERS);
    expect(list.status).toBe(403);
    expect(list.json.detail).toBe('This needs the admin role; this key has member');
    const change = await as('admin', 'PATCH', `${MEMBERS}/oidc:ada`, { role: 'admin' });
    expect(change.status).toBe(403);
    expect((await api.platform.storage.memberships.get('acme', 'oidc:ada'))?.role).toBe('member');
  });

  it("lets an owner change a member's role, and the audit log records from and to", async () => {
    const changed = await api.request('PATCH', `${MEMBERS}/${encodeURIComponent('oidc:ada')}`, { json: { role: 'admin' } });
    expect(changed.status).toBe(200);
    expect(changed.json).toEqual({ ...ada, role: 'admin' });
    expect((await as('admin', 'GET', MEMBERS)).json.members.map((each: MembershipRecord) => [each.user_id, each.role])).toEqual([
      ['alice', 'owner'],
      ['oidc:ada', 'admin'],
      ['oidc:vera', 'viewer'],
    ]);
    const audit = await api.request('GET', '/api/automation/v1/audit?limit=100');
    const entries = (audit.json.entries as Array<{ action: string; actor: unknown; target: unknown; details: unknown }>).filter(
      (entry) => entry.action === 'member.role_changed',
    );
    expect(entries).toEqual([
      expect.objectContaining({
        actor: { kind: 'key', id: 'alice', role: 'owner' },
        target: { type: 'member', id: 'oidc:ada' },
        details: { from: 'member', to: 'admin' },
      }),
    ]);
  });

  it('refuses unknown fields and roles with 422, changing nothing', async () => {
    for (const json of [{ role: 'viewer', email: 'x@acme.test' }, { role: 'superuser' }, {}]) {
      const answer = await api.request('PATCH', `${MEMBERS}/oidc:vera`, { json });
      expect(answer.status, JSON.stringify(json)).toBe(422);
    }
    expect((await api.platform.storage.memberships.get('acme', 'oidc:vera'))?.role).toBe('viewer');
  });

  it('answers 404 for a user with no membership in the org', async () => {
    const answer = await api.request('PATCH', `${MEMBERS}/oidc:nobody`, { json: { role: 'member' } });
    expect(answer.status).toBe(404);
    expect(answer.json.detail).toBe('Member not found');
  });

  it('refuses an owner changing their own role with 409, and the org keeps its owner', async () => {
    const answer = await api.request('PATCH', `${MEMBERS}/alice`, { json: { role: 'viewer' } });
    expect(answer.status).toBe(409);
    expect(answer.json.detail).toBe('You cannot change your own role; ask another owner to change it');
    expect((await api.platform.storage.memberships.get('acme', 'alice'))?.role).toBe('owner');
  });

  it("never shows or changes another org's member", async () => {
    expect((await api.request('GET', MEMBERS, { as: 'mallory' })).json).toEqual({ members: [mallory] });
    const change = await api.request('PATCH', `${MEMBERS}/oidc:mallory`, { json: { role: 'viewer' } });
    expect(change.status).toBe(404);
    expect(change.json.detail).toBe('Member not found');
    expect(await api.platform.storage.memberships.get('evil', 'oidc:mallory')).toEqual(mallory);
    const fromEvil = await api.request('PATCH', `${MEMBERS}/oidc:ada`, { as: 'mallory', json: { role: 'viewer' } });
    expect(fromEvil.status).toBe(404);
    expect((await api.platform.storage.memberships.get('acme', 'oidc:ada'))?.role).toBe('admin');
  });
});
