import { z } from 'zod';
import { timestampSchema } from './common.js';
import { expressionSchema } from '../expressions/expression-schema.js';
import { ALLOWED_ACTOR_GROUPS, GITHUB_SOURCE, ON_CONFLICT_POLICIES, SOURCE_NAME_PATTERN } from './vocabulary.js';
import { hostKindOfSource } from './webhook.js';

/** `github`, or the `source` of a registered custom webhook. */
export const triggerSourceSchema = z.string().regex(SOURCE_NAME_PATTERN, 'must be "github" or a custom webhook source (lowercase letters, digits and hyphens)');

/** An event-key pattern: exact, or a glob (`*`, `?`, `[...]`), e.g. `pull_request.*`. */
export const eventPatternSchema = z.string().min(1).max(200);

export const MAX_PATTERNS = 50;

/**
 * A mention handle as the host writes it: `@` and a login (a GitHub App's bot login may end in
 * `[bot]`), or Bitbucket's `@{<account id>}`. Matched as a whole word, in any case (logins are
 * case-insensitive on every host). On Slack the app's own mention (`<@U…>`) counts whatever the handle.
 */
export const mentionSchema = z
  .string()
  .regex(/^@(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,98})(?:\[bot\])?|\{[A-Za-z0-9][A-Za-z0-9:-]{0,127}\})$/, 'must be a handle such as "@agent"');

/** A label's name, matched exactly as the host writes it. */
export const labelNameSchema = z.string().trim().min(1).max(100);

/** The trigger's members, before the rule that ties them together (see {@link automationTriggerSchema}). */
export const automationTriggerFieldsSchema = z.strictObject({
  type: z.literal('event', { error: 'must be "event": automations run on events, not on a schedule' }),
  source: triggerSourceSchema,
  /** The event keys it runs on; optional with `mention` or `label`, which bring their own. */
  on: z.union([eventPatternSchema, z.array(eventPatternSchema).min(1).max(MAX_PATTERNS)]).optional(),
  /**
   * A mention trigger: runs when a comment (an issue's or pull request's, a review's, a review
   * comment) or a new issue or pull request mentions this handle; `<handle> stop` stops the
   * thread's run instead. `null` removes it.
   */
  mention: mentionSchema.nullish(),
  /** A label trigger: runs when this label is added to an issue or pull request; removing it stops the thread's run. `null` removes it. */
  label: labelNameSchema.nullish(),
  /**
   * JMESPath over the payload; the automation fires when the result is truthy. Refused (422)
   * when it does not compile, calls an unknown function, or can build values that grow
   * exponentially with its length; each evaluation is bounded in time and memory and fails
   * closed past the bound (see `expressions/evaluation-budget.ts`).
   */
  filter: expressionSchema.nullish(),
});

/** An automation's trigger: `on` event keys, a `mention` or a `label` (one of the two), and an optional filter. */
export const automationTriggerSchema = automationTriggerFieldsSchema.superRefine((trigger, context) => {
  if (trigger.mention && trigger.label)
    context.addIssue({ code: 'custom', path: ['label'], message: 'a trigger has a mention or a label, not both: make two automations' });
  if (trigger.on === undefined && !trigger.mention && !trigger.label)
    context.addIssue({ code: 'custom', path: ['on'], message: 'give the event keys to run on ("on"), or a "mention" or "label" trigger' });
  if (trigger.label && trigger.source !== GITHUB_SOURCE)
    context.addIssue({
      code: 'custom',
      path: ['label'],
      // The source is named only when it is a source name (short, plain): a 422 never repeats arbitrary input.
      message: `label triggers need the GitHub source ("github")${SOURCE_NAME_PATTERN.test(trigger.source) ? `, not "${trigger.source}"` : ''}`,
    });
  if (trigger.mention && trigger.source !== GITHUB_SOURCE && hostKindOfSource(trigger.source) === null)
    context.addIssue({
      code: 'custom',
      path: ['mention'],
      message: `mention triggers need a code-host or chat source ("github", or a gitlab, bitbucket or slack source)${SOURCE_NAME_PATTERN.test(trigger.source) ? `, not "${trigger.source}"` : ''}`,
    });
});
export type AutomationTriggerInput = z.input<typeof automationTriggerSchema>;

export const onConflictSchema = z.enum(ON_CONFLICT_POLICIES);
export type OnConflict = z.infer<typeof onConflictSchema>;

/** At most `max_runs` runs of the automation start from events per `per_seconds`; the rest are SKIPPED. */
export const rateLimitSchema = z.strictObject({
  max_runs: z.number().int().min(1).max(10_000),
  per_seconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600),
});
export type RateLimit = z.infer<typeof rateLimitSchema>;

/**
 * Flow control of an automation's event runs:
 * - `concurrency_key`: a JMESPath over the payload (e.g. `pull_request.number`); runs whose key
 *   is equal never run at once, and `on_conflict` says what a new one does while another is live:
 *   `queue` (waits its turn, the default), `cancel_previous` (the live ones end CANCELLED) or
 *   `skip` (the new one ends SKIPPED).
 * - `debounce_seconds`: a run waits this long; a later event with the same key within the window
 *   replaces it (the last event of a burst wins).
 * - `rate_limit`: runs started from events per window; beyond it a run is SKIPPED with the reason.
 */
const flowControlInputShape = {
  concurrency_key: expressionSchema.nullish(),
  on_conflict: onConflictSchema.optional(),
  debounce_seconds: z
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .nullish(),
  rate_limit: rateLimitSchema.nullish(),
};

/**
 * A person on the host: a login (GitHub's, a GitLab username, a Bitbucket nickname, a Slack user
 * id such as `U0123ABCD`) or the host's id of them (a Bitbucket `account_id`).
 */
const actorLoginSchema = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9_.:-]{0,127})(?:\[bot\])?$/, 'must be a login on the code host');

/**
 * Who may command the agent through a code-host event (a comment, a mention, a label):
 * `writers` (people with write permission on the repository, asked of the host — the default),
 * `members` (people with any role on the repository), `anyone` (an explicit opt-in for public
 * repositories), or a list of logins. Bots and the platform's own comments never command it.
 */
export const allowedActorsSchema = z.union([z.enum(ALLOWED_ACTOR_GROUPS), z.array(actorLoginSchema).min(1).max(500)]);
export type AllowedActors = z.infer<typeof allowedActorsSchema>;

/** Most channels or user groups `slack_channels` and `slack_user_groups` may name. */
export const MAX_SLACK_TRUST_ENTRIES = 100;

/**
 * Slack's narrowing of who may command the agent, besides the workspace (applied to every Slack
 * event of the automation, whatever `allowed_actors` says): `slack_channels`, the channels it
 * takes commands in (their ids, `C…` or `G…`: Slack's events name a channel by id, never by
 * name); `slack_user_groups`, the user groups (`S…`) whose members may command it, read with
 * the app's bot token (`usergroups:read`). Absent or `null`: any channel, anyone of the workspace.
 */
const slackTrustInputShape = {
  slack_channels: z
    .array(z.string().regex(/^[CG][A-Z0-9]{2,30}$/, "must be a Slack channel's id, such as C0123ABCD (a channel's name is not one)"))
    .min(1)
    .max(MAX_SLACK_TRUST_ENTRIES)
    .nullish(),
  slack_user_groups: z
    .array(z.string().regex(/^S[A-Z0-9]{2,30}$/, "must be a Slack user group's id, such as S0123ABCD"))
    .min(1)
    .max(MAX_SLACK_TRUST_ENTRIES)
    .nullish(),
};

/** `owner/name` of a GitHub repository. */
export const GITHUB_REPOSITORY_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

/** Most repositories `github_repositories` may name. */
export const MAX_GITHUB_REPOSITORIES = 50;

/**
 * Reporting back to GitHub (opt-in): `report_to_github` puts a 👀 reaction on the comment,
 * issue or pull request whose event started a run, and one comment with the outcome in its
 * thread when the run ends; `github_repositories` are the repositories, besides the run's own,
 * the agent's GitHub tools may act on.
 */
const githubInputShape = {
  report_to_github: z.boolean().optional(),
  allowed_actors: allowedActorsSchema.nullish(),
  github_repositories: z
    .array(z.string().regex(GITHUB_REPOSITORY_PATTERN, 'must be a GitHub repository as owner/name'))
    .max(MAX_GITHUB_REPOSITORIES)
    .optional(),
};

/** Body of `POST /api/automation/v1`. */
export const automationCreateInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(500),
  enabled: z.boolean().default(true),
  trigger: automationTriggerSchema,
  instructions: z.string().min(1).max(50_000),
  sandbox_spec_id: z.string().min(1).max(200).nullish(),
  llm_model: z.string().min(1).max(200).nullish(),
  selected_repository: z.string().min(1).max(500).nullish(),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .nullish(),
  ...flowControlInputShape,
  ...githubInputShape,
  ...slackTrustInputShape,
});
export type AutomationCreateInput = z.input<typeof automationCreateInputSchema>;

/**
 * Body of `PATCH /api/automation/v1/{id}`: any subset. `trigger` members given replace the
 * stored ones (`filter: null` removes the filter); the result is validated as a whole.
 */
export const automationUpdateInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(500).optional(),
  enabled: z.boolean().optional(),
  trigger: automationTriggerFieldsSchema.partial().optional(),
  instructions: z.string().min(1).max(50_000).optional(),
  sandbox_spec_id: z.string().min(1).max(200).nullish(),
  llm_model: z.string().min(1).max(200).nullish(),
  selected_repository: z.string().min(1).max(500).nullish(),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .nullish(),
  ...flowControlInputShape,
  ...githubInputShape,
  ...slackTrustInputShape,
});
export type AutomationUpdateInput = z.input<typeof automationUpdateInputSchema>;

/** Body of `POST .../{id}/dispatch`: optional payload the run receives as its event. */
export const automationDispatchInputSchema = z.strictObject({
  payload: z.record(z.string(), z.unknown()).nullish(),
});
export type AutomationDispatchInput = z.input<typeof automationDispatchInputSchema>;

export const storedTriggerSchema = z.object({
  type: z.literal('event'),
  source: z.string(),
  /** The event keys it runs on: as given, or those its mention or label trigger brings. */
  on: z.union([z.string(), z.array(z.string())]),
  filter: z.string().nullable(),
  /** Absent on triggers stored before mention and label triggers existed, which read as none. */
  mention: z.string().nullish(),
  label: z.string().nullish(),
});
export type StoredTrigger = z.infer<typeof storedTriggerSchema>;

/** An automation as stored and returned (it holds no secret). */
export const automationSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  created_by: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  trigger: storedTriggerSchema,
  instructions: z.string(),
  sandbox_spec_id: z.string().nullable(),
  llm_model: z.string().nullable(),
  selected_repository: z.string().nullable(),
  timeout_seconds: z.number().int().nullable(),
  /** Flow control; absent on automations stored before it existed, which read as none. */
  concurrency_key: z.string().nullish(),
  on_conflict: onConflictSchema.optional(),
  debounce_seconds: z.number().int().nullish(),
  rate_limit: rateLimitSchema.nullish(),
  /** Reporting back to GitHub; absent on automations stored before it existed, which read as off. */
  report_to_github: z.boolean().optional(),
  /** Repositories besides the run's own that the agent's GitHub tools may act on; absent reads as none. */
  github_repositories: z.array(z.string()).optional(),
  /** Who may command it through code-host events; absent or `null` reads as `writers`. */
  allowed_actors: allowedActorsSchema.nullish(),
  /** Slack channels (ids) it takes commands in; absent or `null`: any. */
  slack_channels: z.array(z.string()).nullish(),
  /** Slack user groups (ids) whose members may command it; absent or `null`: anyone of the workspace. */
  slack_user_groups: z.array(z.string()).nullish(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  last_triggered_at: timestampSchema.nullable(),
});
export type Automation = z.infer<typeof automationSchema>;
export type AutomationRecord = Automation;

export const automationListSchema = z.object({ automations: z.array(automationSchema), total: z.number().int() });
export type AutomationList = z.infer<typeof automationListSchema>;

/**
 * Body of `POST /api/automation/v1/preset/prompt`, the OpenHands automation service's create
 * path, an alias of `POST /api/automation/v1`: `prompt` is the automation's `instructions`,
 * `model` its `llm_model`, `timeout` (seconds) its `timeout_seconds`; `trigger` is the same event
 * trigger (a `cron` trigger is refused: automations run on events). Unknown fields are refused,
 * as OpenHands refuses them.
 */
export const promptAutomationInputSchema = z.strictObject({
  name: automationCreateInputSchema.shape.name,
  prompt: automationCreateInputSchema.shape.instructions,
  trigger: automationTriggerSchema,
  model: automationCreateInputSchema.shape.llm_model,
  timeout: automationCreateInputSchema.shape.timeout_seconds,
  enabled: z.boolean().optional(),
  sandbox_spec_id: automationCreateInputSchema.shape.sandbox_spec_id,
  selected_repository: automationCreateInputSchema.shape.selected_repository,
});
export type PromptAutomationInput = z.input<typeof promptAutomationInputSchema>;

/** `GET /api/automation/health` (no credentials): the automation service answers and its storage is reachable. */
export const automationHealthSchema = z.object({
  status: z.literal('ok'),
  storage: z.literal('ok'),
  /** PENDING runs waiting for an executor, across all orgs, counted up to 100 (100 means 100 or more). */
  pending_runs: z.number().int().min(0),
});
export type AutomationHealth = z.infer<typeof automationHealthSchema>;
