/**
 * Who may command the agent from Bitbucket: a person's permission on the repository, asked of
 * Bitbucket with the automation owner's token — the effective permission (direct, or through a
 * group or the workspace), read as a role (`admin`, `write`, `read`, `none`). Only a repository
 * admin may read it, so the owner's token must be able to (a repository access token with the
 * Admin permission on repositories); when it cannot, or Bitbucket does not answer, the question
 * fails and the command is refused (fail closed).
 * @module
 */
import type { RepositoryRole } from '../github/github-api.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import { bitbucketRepositoryOf, createBitbucketApi, type BitbucketApi } from './bitbucket-api.js';

export interface BitbucketRoleLookupOptions {
  /** The owner's settings, decrypted (their token and host). */
  settingsOf(userId: string): Promise<AgentSettings>;
  /** The Bitbucket API for a token and host. Default: {@link createBitbucketApi}. */
  apiFor?(token: string, host: string | null): BitbucketApi;
}

/**
 * `(ownerUserId, 'workspace/repo', { login, id })` → the role of the person with Bitbucket account
 * id (or `{uuid}`) `id` on the repository. Throws, with words a person acts on, when it cannot be
 * asked: no token stored, no account id in the event, the token may not read permissions.
 */
export function createBitbucketRoleLookup(
  options: BitbucketRoleLookupOptions,
): (ownerUserId: string, repository: string, actor: { login: string; id: string | null }) => Promise<RepositoryRole> {
  const apiFor = options.apiFor ?? ((token: string, host: string | null) => createBitbucketApi(token, host));
  return async (ownerUserId, repository, actor) => {
    // A nickname is not unique on Bitbucket: only the account's id says who wrote.
    if (!actor.id) throw new Error(`the event names no Bitbucket account id for @${actor.login}`);
    const stored = (await options.settingsOf(ownerUserId)).providerTokens.bitbucket;
    if (!stored?.token) throw new Error(`no Bitbucket token is stored for the automation's owner (${ownerUserId})`);
    return apiFor(stored.token, stored.host).permissionOf(bitbucketRepositoryOf(repository), actor.id);
  };
}
