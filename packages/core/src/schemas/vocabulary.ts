/**
 * The API's closed lists of names (statuses, event types, provider types, policies) and the rule
 * for source names, as plain values without zod. The schema files build their enums and checks
 * from these; browser code (the client SDK, the console) imports them from
 * `@agent-platform/core/schemas`, and since core has no side effects a bundler keeps this file
 * alone, without zod or the schemas. So each list is written once, here.
 * @module
 */

/** A run's statuses, in the order a run moves through them. */
export const RUN_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'] as const;

/** Statuses a run never leaves. */
export const FINAL_RUN_STATUSES: readonly (typeof RUN_STATUSES)[number][] = ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'];

/** What ingest made of a delivery. */
export const DELIVERY_STATUSES = ['matched', 'unmatched', 'duplicate', 'ignored'] as const;

/**
 * The providers a user can store a token for: the git providers, and `slack` (the bot token of
 * the workspace's Slack app, with which runs answer in Slack threads; never used to clone).
 */
export const PROVIDER_TYPES = ['github', 'gitlab', 'bitbucket', 'bitbucket_data_center', 'azure_devops', 'forgejo', 'enterprise_sso', 'slack'] as const;

/**
 * Providers whose token answers in a chat, not a git host's: never sent to a git remote, never
 * in a sandbox's environment (the agent replies through its host tool, which holds the token).
 */
export const CHAT_PROVIDER_TYPES: readonly (typeof PROVIDER_TYPES)[number][] = ['slack'];

/** What the platform tells subscribers about. */
export const OUTBOUND_EVENT_TYPES = ['delivery.received', 'run.started', 'run.completed', 'run.failed', 'run.cancelled', 'subscription.disabled'] as const;

/** An outbound message's statuses. */
export const OUTBOUND_MESSAGE_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

/** What a new run does when a run of the same automation with the same concurrency key is live (flow control). */
export const ON_CONFLICT_POLICIES = ['queue', 'cancel_previous', 'skip'] as const;

/**
 * A team member's role in their org, weakest first: `viewer` reads; `member` also creates and
 * changes their own automations and runs work; `admin` also changes anyone's automations and the
 * org's sources, subscribers and links; `owner` is all of it.
 */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;

/** What a spend budget caps: the whole org's spend, one user's, or one automation's. */
export const BUDGET_SCOPES = ['org', 'user', 'automation'] as const;

/** The calendar period (UTC) a budget's cap applies to. */
export const BUDGET_PERIODS = ['day', 'month'] as const;

/** Who may command the agent through a code-host event, besides a list of logins (`allowed_actors`). */
export const ALLOWED_ACTOR_GROUPS = ['writers', 'members', 'anyone'] as const;

/** The built-in code-host source. */
export const GITHUB_SOURCE = 'github';

/**
 * A source's name: 1-50 lowercase letters, digits and hyphens, starting and ending with a letter
 * or digit. The hyphen is escaped so that the pattern also compiles with the `v` flag, the way
 * browsers compile an `<input pattern>` built from it.
 */
// biome-ignore lint/complexity/noUselessEscapeInRegex: the escape is needed under the `v` flag (see above)
export const SOURCE_NAME_PATTERN = /^[a-z0-9]([a-z0-9\-]{0,48}[a-z0-9])?$/;
