/** The automation form's draft: the fields as typed, from an automation, and as the API takes them. */
import { GITHUB_SOURCE, type Automation, type AutomationCreateInput } from '@agent-platform/client';
import { flowDraftOf, flowInputOf, type FlowDraft } from './flow-control.js';

/** An automation's `on`, one pattern or several, as a list. */
export const patternsOf = (on: string | string[]) => (typeof on === 'string' ? [on] : on);

/** What starts it: event keys (`on`), or, on GitHub, a mention of a handle or a label added. */
export type TriggerKind = 'on' | 'mention' | 'label';

/** `allowed_actors`' groups (besides a list of logins). */
export type ActorGroup = Exclude<NonNullable<Automation['allowed_actors']>, readonly string[]>;

/**
 * Who may command it, as chosen: `''` leaves `allowed_actors` unset (the default, which checks
 * only comments, mentions and labels), `logins` is the list typed in `actorLogins`.
 */
export type ActorsChoice = '' | ActorGroup | 'logins';

export interface Draft extends FlowDraft {
  name: string;
  source: string;
  triggerKind: TriggerKind;
  on: string;
  mention: string;
  label: string;
  filter: string;
  instructions: string;
  enabled: boolean;
  timeout: string;
  llmModel: string;
  repository: string;
  sandboxSpec: string;
  /** `report_to_github`: only sent for GitHub triggers (the API refuses it for others). */
  reportToGithub: boolean;
  allowedActors: ActorsChoice;
  actorLogins: string;
}

const kindOf = (automation: Automation | null): TriggerKind => (automation?.trigger.mention ? 'mention' : automation?.trigger.label ? 'label' : 'on');

export const draftOf = (automation: Automation | null): Draft => {
  const actors = automation?.allowed_actors ?? null;
  return {
    name: automation?.name ?? '',
    source: automation?.trigger.source ?? '',
    triggerKind: kindOf(automation),
    // A mention's or label's automation holds the event keys it brings: a start, if the kind is changed to event keys.
    on: automation ? patternsOf(automation.trigger.on).join(', ') : '',
    mention: automation?.trigger.mention ?? '',
    label: automation?.trigger.label ?? '',
    filter: automation?.trigger.filter ?? '',
    instructions: automation?.instructions ?? '',
    enabled: automation?.enabled ?? true,
    timeout: automation?.timeout_seconds?.toString() ?? '',
    llmModel: automation?.llm_model ?? '',
    repository: automation?.selected_repository ?? '',
    sandboxSpec: automation?.sandbox_spec_id ?? '',
    reportToGithub: automation?.report_to_github ?? false,
    allowedActors: Array.isArray(actors) ? 'logins' : ((actors as ActorGroup | null) ?? ''),
    actorLogins: Array.isArray(actors) ? actors.join(', ') : '',
    ...flowDraftOf(automation),
  };
};

export const isGithub = (draft: Draft) => draft.source.trim() === GITHUB_SOURCE;

/** The trigger kind in effect: mentions and labels are GitHub's, so any other source runs on event keys. */
export const triggerKindOf = (draft: Draft): TriggerKind => (isGithub(draft) ? draft.triggerKind : 'on');

/**
 * The draft with another trigger kind. A mention or a label is someone asking in a thread, so
 * reporting back there is turned on with it (as the API does when it is not given); it stays a
 * checkbox the user can clear.
 */
export const withTriggerKind = (draft: Draft, kind: TriggerKind): Draft => ({
  ...draft,
  triggerKind: kind,
  reportToGithub: kind === 'on' ? draft.reportToGithub : true,
});

/**
 * The trigger's members of the kind in effect. The other kinds are sent as `null`, which removes
 * them on update; a mention or label sends no `on`, so it runs on the events it brings.
 */
function triggerOf(draft: Draft) {
  switch (triggerKindOf(draft)) {
    case 'mention':
      return { mention: handleOf(draft.mention), label: null };
    case 'label':
      return { label: draft.label.trim(), mention: null };
    default:
      return { on: parsePatterns(draft.on), mention: null, label: null };
  }
}

/** A handle as typed, with its `@` when it was left out (`agent` means `@agent`). */
const handleOf = (text: string) => {
  const handle = text.trim();
  return handle && !handle.startsWith('@') ? `@${handle}` : handle;
};

/** `allowed_actors` as chosen: unset (`null`), a group, or the logins typed (an `@` before one is dropped). */
function allowedActorsOf(draft: Draft): AutomationCreateInput['allowed_actors'] {
  if (!isGithub(draft) || draft.allowedActors === '') return null;
  if (draft.allowedActors !== 'logins') return draft.allowedActors;
  return draft.actorLogins
    .split(/[,\s]+/)
    .map((login) => login.replace(/^@/, ''))
    .filter(Boolean);
}

/** The form's draft as the API takes it (create, update, validate). */
export const inputOf = (draft: Draft) =>
  ({
    name: draft.name.trim(),
    enabled: draft.enabled,
    trigger: { type: 'event' as const, source: draft.source.trim(), ...triggerOf(draft), filter: draft.filter.trim() || null },
    instructions: draft.instructions,
    timeout_seconds: draft.timeout.trim() ? Number(draft.timeout) : null,
    llm_model: draft.llmModel.trim() || null,
    selected_repository: draft.repository.trim() || null,
    sandbox_spec_id: draft.sandboxSpec.trim() || null,
    report_to_github: isGithub(draft) && draft.reportToGithub,
    allowed_actors: allowedActorsOf(draft),
    ...flowInputOf(draft),
  }) satisfies AutomationCreateInput;

/** The patterns of an `on` field as typed: separated by commas or new lines. */
const parsePatterns = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((pattern) => pattern.trim())
    .filter(Boolean);
