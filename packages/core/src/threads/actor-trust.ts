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
import type { AllowedActors, AutomationRecord } from '../schemas/automation.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import { isCommentEvent, writtenByPlatform, type EventActor } from './event-actor.js';

/** Asks the host for `login`'s role on `repository` (`owner/name`), with the token of `ownerUserId`. */
export type RoleLookup = (ownerUserId: string, repository: string, login: string) => Promise<RepositoryRole>;

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

/** Whether the event's actor must be trusted: code-host comments, mention and label triggers, and automations that name `allowed_actors`. */
export function needsTrust(automation: Pick<AutomationRecord, 'trigger' | 'allowed_actors'>, eventKey: string): boolean {
  if (automation.trigger.source !== GITHUB_SOURCE) return false;
  return isCommentEvent(eventKey) || Boolean(automation.trigger.mention || automation.trigger.label || automation.allowed_actors);
}

const describeAllowed = (allowed: AllowedActors): string =>
  Array.isArray(allowed)
    ? `the logins in allowed_actors (${allowed.length})`
    : allowed === 'writers'
      ? 'people with write permission on the repository (allowed_actors: writers)'
      : `allowed_actors: ${allowed}`;

export class ActorTrust {
  private readonly roles = new LruMap<{ role: RepositoryRole | Error; until: number }>(MAX_CACHED);

  constructor(
    private readonly clock: Clock,
    private readonly lookup: RoleLookup | null,
  ) {}

  async decide(automation: Pick<AutomationRecord, 'created_by' | 'allowed_actors'>, payload: unknown, actor: EventActor): Promise<TrustDecision> {
    const login = actor.login;
    const refuse = (why: string): TrustDecision => ({ trusted: false, actor: login, why });
    if (actor.bot) return refuse(`${login ? `@${login}` : 'the sender'} is a bot: bots never command the agent`);
    if (writtenByPlatform(actor.text)) return refuse('the platform wrote this itself (its own comment or pull request): it never commands itself');
    if (!login) return refuse('the event names no sender');
    const allowed = automation.allowed_actors ?? 'writers';
    if (allowed === 'anyone') return { trusted: true, actor: login };
    if (Array.isArray(allowed)) {
      return allowed.some((name) => name.toLowerCase() === login.toLowerCase())
        ? { trusted: true, actor: login }
        : refuse(`@${login} is not one of ${describeAllowed(allowed)}`);
    }
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

  private async roleOf(ownerUserId: string, repository: string, login: string): Promise<RepositoryRole | Error> {
    const key = `${ownerUserId}\n${repository.toLowerCase()}\n${login.toLowerCase()}`;
    const now = this.clock.now().getTime();
    const known = this.roles.get(key);
    if (known && known.until > now) return known.role;
    if (!this.lookup) return new Error('no code host is configured to ask');
    try {
      const role = await this.lookup(ownerUserId, repository, login);
      this.roles.set(key, { role, until: now + ROLE_TTL_MS });
      return role;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.roles.set(key, { role: failure, until: now + FAILURE_TTL_MS });
      return failure;
    }
  }
}
