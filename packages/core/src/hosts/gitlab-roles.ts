/**
 * Who may command the agent from GitLab: a person's access level on the project, asked of GitLab
 * with the automation owner's token (`GET /projects/:id/members/all/:user_id`, so a level
 * inherited from a group counts), read as a role — Developer (30) and up can push, so they are
 * the project's writers. When it cannot be asked (no token stored, no user id in the event,
 * GitLab refuses or does not answer) the question fails and the command is refused (fail closed).
 * @module
 */
import type { RepositoryRole } from '../github/github-api.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import { createGitLabApi, GITLAB_ACCESS_LEVELS, type GitLabApi } from './gitlab-api.js';

export interface GitLabRoleLookupOptions {
  /** The owner's settings, decrypted (their token and host). */
  settingsOf(userId: string): Promise<AgentSettings>;
  /** The GitLab API for a token and host. Default: `@gitbeaker/rest`. */
  apiFor?(token: string, host: string | null): GitLabApi;
}

/**
 * GitLab's access level as a role: Owner `admin`, Maintainer `maintain`, Developer `write`,
 * Reporter and Planner `triage`, Guest `read`; Minimal Access (which sees nothing of the project)
 * and no membership `none`.
 */
export function roleOfAccessLevel(level: number): RepositoryRole {
  if (level >= GITLAB_ACCESS_LEVELS.owner) return 'admin';
  if (level >= GITLAB_ACCESS_LEVELS.maintainer) return 'maintain';
  if (level >= GITLAB_ACCESS_LEVELS.developer) return 'write';
  if (level >= GITLAB_ACCESS_LEVELS.planner) return 'triage';
  if (level >= GITLAB_ACCESS_LEVELS.guest) return 'read';
  return 'none';
}

/**
 * `(ownerUserId, 'group/project', { login, id })` → the role of GitLab user `id` on the project.
 * Throws, with words a person acts on, when it cannot be asked.
 */
export function createGitLabRoleLookup(
  options: GitLabRoleLookupOptions,
): (ownerUserId: string, repository: string, actor: { login: string; id: string | null }) => Promise<RepositoryRole> {
  const apiFor = options.apiFor ?? createGitLabApi;
  return async (ownerUserId, repository, actor) => {
    // Members are asked by user id (GitLab's webhooks carry `user.id`); a username can be renamed.
    const id = actor.id !== null && /^\d+$/.test(actor.id) ? Number(actor.id) : null;
    if (id === null) throw new Error(`the event names no GitLab user id for @${actor.login}`);
    const stored = (await options.settingsOf(ownerUserId)).providerTokens.gitlab;
    if (!stored?.token) throw new Error(`no GitLab token is stored for the automation's owner (${ownerUserId})`);
    return roleOfAccessLevel(await apiFor(stored.token, stored.host).accessLevelOf(repository, id));
  };
}
