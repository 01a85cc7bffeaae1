/**
 * What mention and label triggers run on: the event keys each brings when its automation names
 * none (a mention's, on its source's host: GitHub's comments, GitLab's notes, Bitbucket's
 * comments, Slack's `app_mention`), and which automations are thread automations — those that
 * answer in the thread of the host event that started them (a mention or label trigger, or
 * `report_to_github`), keep one conversation per thread and take commands from it (`/approve`,
 * `/reject`, stop).
 * @module
 */
import { inboundHostOf } from './inbound-hosts.js';
import type { AutomationRecord, StoredTrigger } from '../schemas/automation.js';

/** Where a mention is written on GitHub: comments of every kind, and a new issue's or pull request's text. */
export const MENTION_EVENTS: readonly string[] = [
  'issue_comment.created',
  'pull_request_review_comment.created',
  'pull_request_review.submitted',
  'issues.opened',
  'pull_request.opened',
];

/** A label added starts, removed stops; comments carry `/approve`, `/reject` and `/stop`. */
export const LABEL_EVENTS: readonly string[] = [
  'issues.labeled',
  'pull_request.labeled',
  'issues.unlabeled',
  'pull_request.unlabeled',
  'issue_comment.created',
  'pull_request_review_comment.created',
];

/** Where a mention is written on the source's host (GitHub's events for a source of no host). */
const mentionEventsOf = (source: string | undefined): readonly string[] =>
  (source === undefined ? null : inboundHostOf(source))?.mentionEvents ?? MENTION_EVENTS;

/** The event keys a trigger runs on: its `on` when given, else those its mention (on its source's host) or label brings. */
export function triggerEvents(trigger: {
  on?: string | string[] | undefined;
  mention?: string | null | undefined;
  label?: string | null | undefined;
  source?: string | undefined;
}): string | string[] {
  if (trigger.on !== undefined) return trigger.on;
  if (trigger.mention) return [...mentionEventsOf(trigger.source)];
  if (trigger.label) return [...LABEL_EVENTS];
  return [];
}

/** Whether `on` is exactly what the trigger's mention or label brings (so a new mention or label brings its own). */
export function isDefaultEvents(trigger: StoredTrigger): boolean {
  const defaults = trigger.mention ? mentionEventsOf(trigger.source) : trigger.label ? LABEL_EVENTS : null;
  if (!defaults || !Array.isArray(trigger.on)) return false;
  return trigger.on.length === defaults.length && trigger.on.every((key, index) => key === defaults[index]);
}

/** An automation that answers in its event's thread and keeps one conversation per thread (on GitHub, GitLab, Bitbucket or Slack). */
export function isThreadAutomation(automation: Pick<AutomationRecord, 'trigger' | 'report_to_github'>): boolean {
  if (inboundHostOf(automation.trigger.source) === null) return false;
  return Boolean(automation.trigger.mention || automation.trigger.label || automation.report_to_github);
}
