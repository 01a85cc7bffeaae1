/**
 * Roles, weakest first (`viewer` < `member` < `admin` < `owner`): whether a principal has the
 * role a route or an action needs, and the 403 that names both when it has not. A principal
 * without a role (a host's own authenticator, a service called directly) is an owner, so
 * nothing that worked before roles existed stops working.
 * @module
 */
import type { Principal, Role } from '../schemas/principal.js';
import { ROLES } from '../schemas/vocabulary.js';
import { PlatformError } from './errors.js';

export const roleOf = (principal: Pick<Principal, 'role'>): Role => principal.role ?? 'owner';

export const hasRole = (principal: Pick<Principal, 'role'>, needed: Role): boolean => ROLES.indexOf(roleOf(principal)) >= ROLES.indexOf(needed);

/** Throws 403 unless `principal` has at least `needed`; `what` says what it needed it for. */
export function requireRole(principal: Pick<Principal, 'role'>, needed: Role, what = 'This'): void {
  if (!hasRole(principal, needed)) throw new PlatformError('FORBIDDEN', `${what} needs the ${needed} role; this key has ${roleOf(principal)}`);
}
