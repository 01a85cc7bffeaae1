/**
 * What the signed-in key's role lets it do, so the console hides what the API would refuse with
 * a 403 (docs/http-api.md, "Roles"). The API still decides: this only spares the user buttons
 * that cannot work, and a 403 that comes anyway is shown with its `detail`.
 *
 * Pure (no DOM, no Preact), so the unit tests import it directly.
 */
import type { Automation, CurrentApiKey } from '@agent-platform/client';

export type Role = CurrentApiKey['role'];

/** Weakest first, as the API orders them. */
export const ROLES: readonly Role[] = ['viewer', 'member', 'admin', 'owner'];

export const atLeast = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

export interface Permissions {
  /** The key's role; `null` when the platform does not describe the key (a host's own authenticator). */
  role: Role | null;
  /** Every write a member may make: create automations, dispatch and cancel runs, replay deliveries, conversations, sandboxes, settings. */
  write: boolean;
  /** The org's webhook sources and outbound subscriptions: create, change, delete, rotate, replay. */
  admin: boolean;
  /** The org's spend budgets: set and remove (owners only; every role reads them and the usage). */
  manageBudgets: boolean;
  /** Whether this key may edit or delete the automation: a member only their own, an admin any. */
  changeAutomation(automation: Pick<Automation, 'created_by'>): boolean;
}

/**
 * The permissions of a session. A key the platform does not describe gets everything: a host's
 * authenticator that names no role makes an owner, and the API refuses (and the console shows
 * why) anything a role it did name does not allow.
 */
export function permissionsOf({ role, userId }: { role: Role | null; userId: string | null }): Permissions {
  const has = (needed: Role) => role === null || atLeast(role, needed);
  return {
    role,
    write: has('member'),
    admin: has('admin'),
    manageBudgets: has('owner'),
    changeAutomation: (automation) => has('admin') || (has('member') && (userId === null || automation.created_by === userId)),
  };
}
