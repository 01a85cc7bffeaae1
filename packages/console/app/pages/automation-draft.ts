/** The automation form's draft: the fields as typed, from an automation, and as the API takes them. */
import { GITHUB_SOURCE, type Automation, type AutomationCreateInput } from '@agent-platform/client';
import { flowDraftOf, flowInputOf, type FlowDraft } from './flow-control.js';

/** An automation's `on`, one pattern or several, as a list. */
export const patternsOf = (on: string | string[]) => (typeof on === 'string' ? [on] : on);

export interface Draft extends FlowDraft {
  name: string;
  source: string;
  on: string;
  filter: string;
  instructions: string;
  enabled: boolean;
  timeout: string;
  llmModel: string;
  repository: string;
  sandboxSpec: string;
  /** `report_to_github`: only sent for GitHub triggers (the API refuses it for others). */
  reportToGithub: boolean;
}

export const draftOf = (automation: Automation | null): Draft => ({
  name: automation?.name ?? '',
  source: automation?.trigger.source ?? '',
  on: automation ? patternsOf(automation.trigger.on).join(', ') : '',
  filter: automation?.trigger.filter ?? '',
  instructions: automation?.instructions ?? '',
  enabled: automation?.enabled ?? true,
  timeout: automation?.timeout_seconds?.toString() ?? '',
  llmModel: automation?.llm_model ?? '',
  repository: automation?.selected_repository ?? '',
  sandboxSpec: automation?.sandbox_spec_id ?? '',
  reportToGithub: automation?.report_to_github ?? false,
  ...flowDraftOf(automation),
});

/** The form's draft as the API takes it (create, update, validate). */
export const inputOf = (draft: Draft) =>
  ({
    name: draft.name.trim(),
    enabled: draft.enabled,
    trigger: { type: 'event' as const, source: draft.source.trim(), on: parsePatterns(draft.on), filter: draft.filter.trim() || null },
    instructions: draft.instructions,
    timeout_seconds: draft.timeout.trim() ? Number(draft.timeout) : null,
    llm_model: draft.llmModel.trim() || null,
    selected_repository: draft.repository.trim() || null,
    sandbox_spec_id: draft.sandboxSpec.trim() || null,
    report_to_github: draft.source.trim() === GITHUB_SOURCE && draft.reportToGithub,
    ...flowInputOf(draft),
  }) satisfies AutomationCreateInput;

/** The patterns of an `on` field as typed: separated by commas or new lines. */
const parsePatterns = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((pattern) => pattern.trim())
    .filter(Boolean);
