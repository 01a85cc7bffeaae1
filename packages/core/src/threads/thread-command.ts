/**
 * What a code-host event asks of a thread automation: work (a mention, the trigger label added,
 * or any matching event of an automation without a mention or label), a stop (`<mention> stop`,
 * `/stop`, the trigger label removed), or an answer to an action held for approval (`/approve`,
 * `/reject`, or after a mention: `<mention> /approve` — on a GitLab merge request a note that
 * starts with `/approve` is GitLab's own quick action, which approves the merge request and posts
 * no note, so the platform never sees it). Mentions count as the host shows them: whole words, in any case, outside code and
 * quotes (a quoted earlier command is not a new one). Pure: matching calls it for every candidate.
 * @module
 */
import type { StoredTrigger } from '../schemas/automation.js';
import type { EventActor } from './event-actor.js';

export type ThreadCommand =
  | { kind: 'work' }
  | { kind: 'stop' }
  /** `action`: the held action it answers, when the host names it (a Slack button); else whichever is held. */
  | { kind: 'approve'; reason: string; action?: string }
  | { kind: 'reject'; reason: string; action?: string }
  /** Not a command for this trigger: the automation does not match (and says why). */
  | { kind: 'none'; why: string };

/** Text a person wrote, without what is not theirs to command with: code (fenced or inline) and quoted lines. */
export function spokenText(text: string): string {
  return text
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n {0,3}\1[^\n]*|$)/gm, '')
    .replace(/`+[^`\n]*`+/g, '')
    .split('\n')
    .filter((line) => !/^\s*>/.test(line))
    .join('\n');
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where `handle` is mentioned in `text` as a whole word: the index after it, or -1. */
function mentionEnd(text: string, handle: string): number {
  const found = new RegExp(`(?:^|[^\\w@/.-])${escapeRegExp(handle)}(?![\\w-])`, 'i').exec(text);
  return found ? found.index + found[0].length : -1;
}

/** A slash command on the text's first line (`/approve looks right`): its name and the rest. */
function slashCommand(text: string): { name: string; rest: string } | null {
  const found = /^\s*\/(approve|reject|stop)\b([^\n]*)/i.exec(text);
  return found ? { name: (found[1] as string).toLowerCase(), rest: (found[2] ?? '').trim() } : null;
}

/** An answer to a held action written after a mention (`@agent /approve looks right`), or `null`. */
function answerAfterMention(rest: string, answers: { action?: string }): ThreadCommand | null {
  const slash = slashCommand(rest);
  if (slash?.name === 'approve') return { kind: 'approve', reason: slash.rest, ...answers };
  if (slash?.name === 'reject') return { kind: 'reject', reason: slash.rest, ...answers };
  return null;
}

/** The command `trigger`'s automation reads in an event (`actor`: from {@link eventActor}). */
export function threadCommand(trigger: Pick<StoredTrigger, 'mention' | 'label'>, eventKey: string, payload: unknown, actor: EventActor): ThreadCommand {
  const action = eventKey.split('.')[1] ?? '';
  if (trigger.label && (action === 'labeled' || action === 'unlabeled')) {
    const name = (payload as { label?: { name?: unknown } } | null)?.label?.name;
    if (name !== trigger.label)
      return { kind: 'none', why: `the label ${JSON.stringify(name ?? null)} is not the trigger's label ${JSON.stringify(trigger.label)}` };
    return action === 'labeled' ? { kind: 'work' } : { kind: 'stop' };
  }
  const text = actor.text === null ? null : spokenText(actor.text);
  const slash = text === null ? null : slashCommand(text);
  const answers = actor.answers ? { action: actor.answers } : {};
  if (slash?.name === 'approve') return { kind: 'approve', reason: slash.rest, ...answers };
  if (slash?.name === 'reject') return { kind: 'reject', reason: slash.rest, ...answers };
  if (slash?.name === 'stop') return { kind: 'stop' };
  if (trigger.mention) {
    // The handle as written, or the host's own spelling of a mention of the agent (Slack's `<@U…>`).
    const ends = [trigger.mention, actor.mentionedAs].flatMap((handle) => (handle && text !== null ? [mentionEnd(text, handle)] : [])).filter((at) => at >= 0);
    const end = ends.length > 0 ? Math.min(...ends) : -1;
    if (end < 0) return { kind: 'none', why: `the event's text does not mention ${trigger.mention}` };
    const rest = (text as string).slice(end).split('\n')[0] ?? '';
    return answerAfterMention(rest, answers) ?? (/^\s*\/?stop\b[\s.!]*$/i.test(rest) ? { kind: 'stop' } : { kind: 'work' });
  }
  if (trigger.label)
    return { kind: 'none', why: `only adding or removing the label ${JSON.stringify(trigger.label)} (or /approve, /reject, /stop) commands it` };
  // No handle of its own (a filter decides what it answers): a comment that is only "@someone stop" stops it, "@someone /approve" answers.
  const addressed = text === null ? null : /^\s*@[A-Za-z0-9][A-Za-z0-9_.-]*(?:\[bot\])?\s+([^\n]*)/.exec(text);
  const answered = addressed ? answerAfterMention(addressed[1] ?? '', answers) : null;
  if (answered) return answered;
  if (text !== null && /^\s*@[A-Za-z0-9][A-Za-z0-9_.-]*(?:\[bot\])?\s+\/?stop[\s.!]*$/i.test(text)) return { kind: 'stop' };
  return { kind: 'work' };
}
