/**
 * Who may do what in a stand-in repository: collaborator roles as GitHub names them, the legacy
 * permission each maps to, the `permissions` flags GitHub derives from a role, and the
 * `author_association` it puts on comments and pull requests.
 * @module
 */
import type { AuthorAssociation, RepositoryRecord, UserRecord } from './resources.js';

/** GitHub's base repository roles (custom roles are not simulated). */
export type CollaboratorRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';

export const COLLABORATOR_ROLES: readonly CollaboratorRole[] = ['admin', 'maintain', 'write', 'triage', 'read'];

/** The flags of a `permissions` object (on a repository, on a collaborator). */
export interface PermissionFlags {
  admin: boolean;
  maintain: boolean;
  push: boolean;
  triage: boolean;
  pull: boolean;
}

/** What the role-holding side of a repository needs: its record and the seeded roles. */
export interface Roles {
  record: RepositoryRecord;
  /** Lower-cased login → role. */
  collaborators: Map<string, CollaboratorRole>;
}

/** The user's role on the repository: the owner is admin, others have what was seeded, or none. */
export function roleOf(repository: Roles, login: string): CollaboratorRole | null {
  if (repository.record.owner.login.toLowerCase() === login.toLowerCase()) return 'admin';
  return repository.collaborators.get(login.toLowerCase()) ?? null;
}

/**
 * The legacy `permission` GitHub still answers beside `role_name`: `maintain` folds into `write`
 * and `triage` into `read`.
 */
export function legacyPermission(role: CollaboratorRole | null): 'admin' | 'write' | 'read' | 'none' {
  if (role === 'admin') return 'admin';
  if (role === 'maintain' || role === 'write') return 'write';
  if (role === 'triage' || role === 'read') return 'read';
  return 'none';
}

/** Each role includes the ones below it: admin ⊃ maintain ⊃ write (push) ⊃ triage ⊃ read (pull). */
export function roleFlags(role: CollaboratorRole | null): PermissionFlags {
  const rank = role === null ? -1 : COLLABORATOR_ROLES.length - 1 - COLLABORATOR_ROLES.indexOf(role);
  return { admin: rank >= 4, maintain: rank >= 3, push: rank >= 2, triage: rank >= 1, pull: rank >= 0 };
}

/**
 * `author_association` as GitHub computes it from what the stand-in knows: the repository's owner
 * is `OWNER`, anyone with a seeded role `COLLABORATOR`, everyone else `NONE` (organization
 * membership and past contributions, which give `MEMBER` and `CONTRIBUTOR`, are not modelled).
 */
export function authorAssociation(repository: Roles, user: UserRecord): AuthorAssociation {
  if (repository.record.owner.login.toLowerCase() === user.login.toLowerCase()) return 'OWNER';
  return repository.collaborators.has(user.login.toLowerCase()) ? 'COLLABORATOR' : 'NONE';
}
