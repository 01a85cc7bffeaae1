/**
 * Who may command the agent through a code-host event, decided before anything runs: never a bot,
 * never the platform's own words, and otherwise whom the automation's `allowed_actors` trusts —
 * `writers` (the default: write permission on the repository), `members` (any role on it), a list
 * of logins, or `anyone`. GitHub's `author_association` settles most cases without a call (an
 * `OWNER` is trusted, someone with no association to the repository is not); the rest are asked
 * of the host with the automation owner's token, and the answer is kept for minutes. In Slack,
 * the people of the event's workspace are its writers and members, and an automation may narrow
 * that further, whatever `allowed_actors` says: to commands written in its `slack_channels`, by
 * members of its `slack_user_groups` (asked of Slack with the app's bot token, kept for minutes
 * like a role). A host that cannot answer refuses the command (fail closed), and every refusal
 * says who and why.
 * @module
 */
import type { Clock } from '../ports/clock.js';
import { LruMap } from '../kernel/lru-map.js';
import type { RepositoryRole } from '../github/github-api.js';
import { inboundHostOf } from './inbound-hosts.js';
import type { AllowedActors, AutomationRecord } from '../schemas/automation.js';
import type { HostSourceKind } from '../schemas/webhook.js';
import { sentByPlatform, type EventActor } from './event-actor.js';

/** Asks the host for `login`'s role on `repository` (`owner/name`), with the token of `ownerUserId`. */
export type RoleLookup = (ownerUserId: string, repository: string, login: string) => Promise<RepositoryRole>;

/**
 * Asks GitLab or Bitbucket for a member's role on `repository` (a GitLab project's path, a
 * Bitbucket `workspace/repo`), with the token of `ownerUserId`: GitLab's access level read as a
 * role (Developer and up can write), Bitbucket's permission.
 */
export type HostRoleLookup = (ownerUserId: string, repository: string, actor: { login: string; id: string | null }) => Promise<RepositoryRole>;

/** Asks Slack for the user ids (`U…`) of the members of user group `group` (`S…`), with the bot token of `ownerUserId`. */
export type SlackUserGroupLookup = (ownerUserId: string, group: string) => Promise<readonly string[]>;

/** How the hosts other than GitHub are asked about their people (the answer-back's clients). */
export interface HostLookups {
  /** A member's access level on a GitLab project. */
  gitlab?: HostRoleLookup;
  /** A person's permission on a Bitbucket repository. */
  bitbucket?: HostRoleLookup;
  /** A Slack user group's members, for an automation's `slack_user_groups`. */
  slackUserGroups?: SlackUserGroupLookup;
}

/** The hosts' names in what a refusal says. */
const HOST_TITLES: Readonly<Record<'github' | HostSourceKind, string>> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket', slack: 'Slack' };

export type TrustDecision = { trusted: true; actor: string } | { trusted: false; actor: string | null; why: string };

const WRITE_ROLES: readonly RepositoryRole[] = ['admin', 'maintain', 'write'];
/** Associations that mean no role on the repository: no need to ask. */
const NO_ROLE = new Set(['NONE', 'FIRST_TIMER', 'FIRST_TIME_CONTRIBUTOR', 'CONTRIBUTOR', 'MANNEQUIN']);
/** Associations that mean a role on the repository (of unknown weight for a collaborator or member). */
const SOME_ROLE = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/** How long a role the host told is believed; a changed permission counts after this at most. */
export const ROLE_TTL_MS = 5 * 60_000;
/** How long a failed question is not asked again (a host that is down is not asked per event). */
const FAILURE_TTL_MS = 30_000;
const MAX_CACHED = 10_000;

/** Whether the event's actor must be trusted: a host's comments and messages, mention and label triggers, and automations that name `allowed_actors` (or, on Slack, channels or user groups). */
export function needsTrust(
  automation: Pick<AutomationRecord, 'trigger' | 'allowed_actors' | 'slack_channels' | 'slack_user_groups'>,
  eventKey: string,
): boolean {
  const host = inboundHostOf(automation.trigger.source);
  if (host === null) return false;
  const narrowed = host.host === 'slack' && Boolean(automation.slack_channels?.length || automation.slack_user_groups?.length);
  return host.isComment(eventKey) || narrowed || Boolean(automation.trigger.mention || automation.trigger.label || automation.allowed_actors);
}

const describeAllowed = (allowed: AllowedActors): string =>
  Array.isArray(allowed)
    ? `the logins in allowed_actors (${allowed.length})`
    : allowed === 'writers'
      ? 'people with write permission on the repository (allowed_actors: writers)'
      : `allowed_actors: ${allowed}`;

export class ActorTrust {
  private readonly roles = new LruMap<{ role: RepositoryRole | Error; until: number }>(MAX_CACHED);
  private readonly groups = new LruMap<{ members: ReadonlySet<string> | Error; until: number }>(MAX_CACHED);

  /**
   * `lookup` asks GitHub; `hostLookups` ask GitLab and Bitbucket (the answer-back's clients);
   * without one, `writers` and `members` on that host trust nobody (a list of people, or
   * `anyone`, still works). Slack's people are those of the event's workspace; without its
   * user-group lookup an automation that names `slack_user_groups` trusts nobody in Slack.
   */
  constructor(
    private readonly clock: Clock,
    private readonly lookup: RoleLookup | null,
    private readonly hostLookups: HostLookups = {},
  ) {}

  async decide(
    automation: Pick<AutomationRecord, 'created_by' | 'allowed_actors' | 'slack_channels' | 'slack_user_groups'>,
    payload: unknown,
    actor: EventActor,
  ): Promise<TrustDecision> {
    const login = actor.login;
    const refuse = (why: string): TrustDecision => ({ trusted: false, actor: login, why });
    if (actor.bot) return refuse(`${login ? `@${login}` : 'the sender'} is a bot: bots never command the agent`);
    if (sentByPlatform(actor)) return refuse('the platform wrote this itself (its own comment or pull request): it never commands itself');
    if (!login) return refuse('the event names no sender');
    if (actor.host === 'slack') {
      const narrowed = await this.slackNarrowing(automation, actor, login);
      if (narrowed) return refuse(narrowed);
    }
    const allowed = automation.allowed_actors ?? 'writers';
    if (allowed === 'anyone') return { trusted: true, actor: login };
    if (Array.isArray(allowed)) {
      // A person is named by their login (a GitLab username, a Bitbucket nickname, a Slack user id) or the host's id of them.
      const names = [login, actor.id ?? null].flatMap((name) => (name ? [name.toLowerCase()] : []));
      return allowed.some((name) => names.includes(name.toLowerCase()))
        ? { trusted: true, actor: login }
        : refuse(`@${login} is not one of ${describeAllowed(allowed)}`);
    }
    const host = actor.host ?? 'github';
    if (host === 'slack') {
      // Slack has no repository roles: the people of the workspace that installed the app count as its members and writers.
      return actor.inWorkspace === false
        ? refuse(`@${login} is not in the Slack workspace the event came from; this automation takes commands from ${describeAllowed(allowed)}`)
        : { trusted: true, actor: login };
    }
    if (host !== 'github') return this.decideOnHost(host, automation, actor, login, allowed);
    const repository = (payload as { repository?: { full_name?: unknown } } | null)?.repository?.full_name;
    if (typeof repository !== 'string') return refuse('the event names no repository to ask about its people');
    const association = actor.association;
    if (association === 'OWNER') return { trusted: true, actor: login };
    if (association && NO_ROLE.has(association))
      return refuse(`@${login} has no role on ${repository} (GitHub says ${association}); this automation takes commands from ${describeAllowed(allowed)}`);
    if (allowed === 'members' && association && SOME_ROLE.has(association)) return { trusted: true, actor: login };
    const role = await this.roleOf(automation.created_by, repository, login);
    if (role instanceof Error) return refuse(`could not ask GitHub for @${login}'s role on ${repository}: ${role.message}`);
    const trusted = allowed === 'members' ? role !== 'none' : WRITE_ROLES.includes(role);
    if (trusted) return { trusted: true, actor: login };
    return refuse(
      `@${login} has ${role === 'none' ? 'no role' : `the ${role} role`} on ${repository}; this automation takes commands from ${describeAllowed(allowed)}`,
    );
  }

  /** Why Slack's `slack_channels` or `slack_user_groups` keep `login` from commanding here; `null` when they do not. */
  private async slackNarrowing(
    automation: Pick<AutomationRecord, 'created_by' | 'slack_channels' | 'slack_user_groups'>,
    actor: EventActor,
    login: string,
  ): Promise<string | null> {
    const channels = automation.slack_channels ?? [];
    if (channels.length > 0 && !(actor.channel && channels.includes(actor.channel)))
      return `${actor.channel ? `the command was written in channel ${actor.channel}` : 'the event names no Slack channel'}; this automation takes commands only in the channels of slack_channels (${channels.join(', ')})`;
    const groups = automation.slack_user_groups ?? [];
    if (groups.length === 0) return null;
    const failures: string[] = [];
    for (const group of groups) {
      const members = await this.membersOf(automation.created_by, group);
      if (members instanceof Error) failures.push(`${group}: ${members.message}`);
      else if (members.has(login)) return null;
    }
    const asked = failures.length > 0 ? `; could not ask Slack for the members of ${failures.join('; ')}` : '';
    return `@${login} is in none of the Slack user groups this automation takes commands from (slack_user_groups: ${groups.join(', ')})${asked}`;
  }

  /** A Slack user group's members as Slack told them (cached like a role), or why they could not be had. */
  private async membersOf(ownerUserId: string, group: string): Promise<ReadonlySet<string> | Error> {
    const key = `${ownerUserId}\n${group}`;
    const now = this.clock.now().getTime();
    const known = this.groups.get(key);
    if (known && known.until > now) return known.members;
    const lookup = this.hostLookups.slackUserGroups;
    if (!lookup) return new Error('no way to ask Slack is configured');
    try {
      const members = new Set(await lookup(ownerUserId, group));
      this.groups.set(key, { members, until: now + ROLE_TTL_MS });
      return members;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.groups.set(key, { members: failure, until: now + FAILURE_TTL_MS });
      return failure;
    }
  }

  /** GitLab's and Bitbucket's `writers` and `members`: the member's role, asked of the host. */
  private async decideOnHost(
    host: 'gitlab' | 'bitbucket',
    automation: Pick<AutomationRecord, 'created_by'>,
    actor: EventActor,
    login: string,
    allowed: 'writers' | 'members',
  ): Promise<TrustDecision> {
    const title = HOST_TITLES[host];
    const refuse = (why: string): TrustDecision => ({ trusted: false, actor: login, why });
    const repository = actor.repository;
    if (!repository) return refuse('the event names no repository to ask about its people');
    const lookup = this.hostLookups[host];
    const role = await this.roleOf(
      automation.created_by,
      `${host}:${repository}`,
      login,
      lookup ? () => lookup(automation.created_by, repository, { login, id: actor.id ?? null }) : null,
    );
    if (role instanceof Error) return refuse(`could not ask ${title} for @${login}'s role on ${repository}: ${role.message}`);
    const trusted = allowed === 'members' ? role !== 'none' : WRITE_ROLES.includes(role);
    if (trusted) return { trusted: true, actor: login };
    return refuse(
      `@${login} has ${role === 'none' ? 'no role' : `the ${role} role`} on ${repository}; this automation takes commands from ${describeAllowed(allowed)}`,
    );
  }

  /** The role the host gave (cached), or why it could not be had. `ask` defaults to GitHub's lookup. */
  private async roleOf(ownerUserId: string, repository: string, login: string, ask?: (() => Promise<RepositoryRole>) | null): Promise<RepositoryRole | Error> {
    const key = `${ownerUserId}\n${repository.toLowerCase()}\n${login.toLowerCase()}`;
    const now = this.clock.now().getTime();
    const known = this.roles.get(key);
    if (known && known.until > now) return known.role;
    const lookup = this.lookup;
    const question = ask !== undefined ? ask : lookup ? () => lookup(ownerUserId, repository, login) : null;
    if (!question) return new Error(ask === null ? 'no way to ask this host is configured' : 'no code host is configured to ask');
    try {
      const role = await question();
      this.roles.set(key, { role, until: now + ROLE_TTL_MS });
      return role;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.roles.set(key, { role: failure, until: now + FAILURE_TTL_MS });
      return failure;
    }
  }
}
