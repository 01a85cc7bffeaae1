/**
 * The org's members, as the API offers them: the list (admins), and an owner changing a member's
 * role (DESIGN §25). The role on each console request is read from the membership, so a change
 * applies to the member's next request, sessions already open included.
 * @module
 */
import { keyActor } from '../audit/audit-log.js';
import type { ServiceContext } from '../kernel/context.js';
import { notFound, PlatformError } from '../kernel/errors.js';
import { requireRole } from '../kernel/roles.js';
import { parseInput } from '../kernel/validation.js';
import type { Principal } from '../schemas/principal.js';
import { memberRoleInputSchema, type MemberList, type MembershipRecord } from '../schemas/sign-in.js';

export class MembersService {
  constructor(private readonly context: ServiceContext) {}

  /** The caller's org's members, oldest first. */
  async list(principal: Principal): Promise<MemberList> {
    requireRole(principal, 'admin', 'Listing members');
    return { members: await this.context.storage.memberships.list(principal.orgId) };
  }

  /** Gives a member of the caller's org another role (owners), recorded in the audit log. */
  async setRole(principal: Principal, userId: string, input: unknown): Promise<MembershipRecord> {
    requireRole(principal, 'owner', 'Changing a member’s role');
    const { role } = parseInput(memberRoleInputSchema, input);
    const current = await this.context.storage.memberships.get(principal.orgId, userId);
    if (!current) throw notFound('Member');
    // Refused even as a no-op: an owner demoting themselves could leave the org with no owner,
    // and another owner can always do it for them.
    if (userId === principal.userId) throw new PlatformError('CONFLICT', 'You cannot change your own role; ask another owner to change it');
    if (current.role === role) return current;
    const changed = await this.context.storage.memberships.setRole(principal.orgId, userId, role);
    // Gone between the read and the write (nothing deletes memberships yet, but the port allows it).
    if (!changed) throw notFound('Member');
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'member.role_changed',
      target: { type: 'member', id: userId },
      details: { from: current.role, to: changed.role },
    });
    return changed;
  }
}
