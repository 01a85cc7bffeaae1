/**
 * Who may command the agent through a code-host event, decided before anything runs: never a bot,
 * never the platform's own words, and otherwise whom the automation's `allowed_actors` trusts —
 * `writers` (the default: write permission on the repository), `members` (any role on it), a list
 * of logins, or `anyone`. GitHub's `author_association` settles most cases without a call (an
 * `OWNER` is trusted, someone with no association to the repository is not); the rest are asked
 * of the host with the automation owner's token, and the answer is kept for minutes. A host that
 * cannot answer refuses the command (fail closed), and every refusal says who and why.
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

/** Whether the event's actor must be trusted: a host's comments and messages, mention and label triggers, and automations that name `allowed_actors`. */
export function needsTrust(automation: Pick<AutomationRecord, 'trigger' | 'allowed_actors'>, eventKey: string): boolean {
  const host = inboundHostOf(automation.trigger.source);
  if (host === null) return false;
  return host.isComment(eventKey) || Boolean(automation.trigger.mention || automation.trigger.label || automation.allowed_actors);
}

const describeAllowed = (allowed: AllowedActors): string =>
  Array.isArray(allowed)
    ? `the logins in allowed_actors (${allowed.length})`
    : allowed === 'writers'
      ? 'people with write permission on the repository (allowed_actors: writers)'
      : `allowed_actors: ${allowed}`;

export class ActorTrust {
  private readonly roles = new LruMap<{ role: RepositoryRole | Error; until: number }>(MAX_CACHED);

  /**
   * `lookup` asks GitHub; `hostLookups` ask GitLab and Bitbucket (the answer-back's clients);
   * without one, `writers` and `members` on that host trust nobody (a list of people, or
   * `anyone`, still works). Slack needs none: its people are those of the event's workspace.
   */
  constructor(
    private readonly clock: Clock,
    private readonly lookup: RoleLookup | null,
    private readonly hostLookups: Partial<Record<'gitlab' | 'bitbucket', HostRoleLookup>> = {},
  ) {}

  async decide(automation: Pick<AutomationRecord, 'created_by' | 'allowed_actors'>, payload: unknown, actor: EventActor): Promise<TrustDecision> {
    const login = actor.login;
    const refuse = (why: string): TrustDecision => ({ trusted: false, actor: login, why });
    if (actor.bot) return refuse(`${login ? `@${login}` : 'the sender'} is a bot: bots never command the agent`);
    if (sentByPlatform(actor)) return refuse('the platform wrote this itself (its own comment or pull request): it never commands itself');
    if (!login) return refuse('the event names no sender');
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
