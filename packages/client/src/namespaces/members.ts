import type { MemberRoleInput } from '../transport/types.js';
import type { CallOptions, Transport } from '../transport/transport.js';

/** The org's members, everyone who signed in to the console (`/api/automation/v1/members`). */
export function membersNamespace(transport: Transport) {
  return {
    /** The org's members with their roles, oldest first (admins and owners). */
    list: (options?: CallOptions) => transport.call('GET /api/automation/v1/members', {}, options),
    /** Gives a member another role (owners only; not their own), applied to the member's next request. */
    setRole: (userId: string, input: MemberRoleInput, options?: CallOptions) =>
      transport.call('PATCH /api/automation/v1/members/{user_id}', { params: { user_id: userId }, json: input }, options),
  };
}
