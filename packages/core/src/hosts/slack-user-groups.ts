/**
 * Who may command the agent from Slack, when an automation names `slack_user_groups`: the members
 * of a Slack user group, asked of Slack with the bot token of the app the automation's owner
 * stored as their `slack` provider token (`usergroups.users.list`, which needs the
 * `usergroups:read` scope). When it cannot be asked (no token stored, the scope missing, the group
 * unknown, Slack not answering) the question fails and the command is refused (fail closed).
 * @module
 */
import type { AgentSettings } from '../ports/agent-runner.js';
import { createSlackApi, type SlackApi } from './slack-api.js';

export interface SlackUserGroupLookupOptions {
  /** The owner's settings, decrypted (their bot token and host). */
  settingsOf(userId: string): Promise<AgentSettings>;
  /** The Slack Web API for a bot token and host. Default: `@slack/web-api`. */
  apiFor?(token: string, host: string | null): SlackApi;
}

/**
 * `(ownerUserId, 'S0123ABCD')` → the user ids (`U…`) of the group's members. Throws, with words a
 * person acts on, when it cannot be asked.
 */
export function createSlackUserGroupLookup(options: SlackUserGroupLookupOptions): (ownerUserId: string, group: string) => Promise<readonly string[]> {
  const apiFor = options.apiFor ?? createSlackApi;
  return async (ownerUserId, group) => {
    const stored = (await options.settingsOf(ownerUserId)).providerTokens.slack;
    if (!stored?.token) throw new Error(`no Slack bot token is stored for the automation's owner (${ownerUserId})`);
    return apiFor(stored.token, stored.host).userGroupMembers(group);
  };
}
