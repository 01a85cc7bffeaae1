/**
 * `client.members` against the real handler in process: the list, a role change (answers parsed
 * with the server's own schemas), and the server's refusals as typed errors.
 */
import { memberListSchema, membershipRecordSchema } from '@agent-platform/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentPlatformError } from './index.js';
import { startInProcess, type InProcessService } from '../test-support/in-process.js';

let service: InProcessService;
beforeAll(async () => {
  service = await startInProcess();
  const memberships = service.platform.storage.memberships;
  await memberships.insertOrGet({ org_id: 'acme', user_id: 'alice', role: 'owner', email: null, created_at: '2030-01-01T00:00:00.000Z' });
  await memberships.insertOrGet({ org_id: 'acme', user_id: 'oidc:ada', role: 'member', email: 'ada@acme.test', created_at: '2030-01-02T00:00:00.000Z' });
});
afterAll(() => service.close());

describe('members', () => {
  it('lists the members and changes a role; the own role is refused with a 409', async () => {
    const alice = service.client('alice');
    const listed = memberListSchema.parse(await alice.members.list());
    expect(listed.members.map((member) => member.user_id)).toEqual(['alice', 'oidc:ada']);
    const changed = membershipRecordSchema.parse(await alice.members.setRole('oidc:ada', { role: 'admin' }));
    expect(changed).toMatchObject({ user_id: 'oidc:ada', role: 'admin' });
    const refused = await alice.members.setRole('alice', { role: 'viewer' }).catch((error: unknown) => error);
    expect(isAgentPlatformError(refused) && refused.status).toBe(409);
  });
});
