/**
 * The comment a run leaves in the thread that started it: the outcome, the agent's final answer
 * (or why it failed), and a link to the run. A hidden marker names the run, so a later attempt,
 * or a worker that lost track of the comment's id, finds it and edits it instead of posting a
 * second one. The comments are in the automation owner's `language` (their fixed phrases,
 * numbers and dates; see `i18n/`), English where the catalog has not that language.
 * @module
 */
import { commentLanguage, type CommentLanguage } from '../i18n/comment-language.js';
import type { OutcomeStatus } from '../i18n/run-comment-phrases.js';
import type { PendingAction } from '../ports/agent-runner.js';
import type { RunRecord } from '../schemas/run.js';
import { PLATFORM_MARKER } from './platform-marker.js';

/** GitHub refuses comment bodies over 65,536 characters; the answer is cut well before. */
const MAX_ANSWER = 60_000;

export const runMarker = (runId: string): string => `${PLATFORM_MARKER} run ${runId} -->`;

const OUTCOMES: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'] satisfies OutcomeStatus[];

/** The automation's name in bold, without what Markdown would take for markup. */
const bold = (name: string): string => `**${name.replace(/[*_`[\]<>]/g, '')}**`;

/** The run's link (or its id alone), and how many attempts it took when more than one. */
function runLine(run: RunRecord, runUrl: string | null, words: CommentLanguage, withAttempts = false): string {
  const text = words.phrases.run(`\`${run.id}\``);
  const attempts = withAttempts && run.attempt > 1 ? words.phrases.attempts(words.count(run.attempt)) : '';
  return `${runUrl ? `[${text}](${runUrl})` : text}${attempts}`;
}

/** Markdown that shows `text` as it is: a fenced block longer than any backtick run inside it. */
function quoted(text: string, words: CommentLanguage): string {
  const cut = text.length > MAX_ANSWER ? `${text.slice(0, MAX_ANSWER)}\n${words.phrases.cut(words.count(text.length - MAX_ANSWER))}` : text;
  const longest = Math.max(2, ...[...cut.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${cut}\n${fence}`;
}

/** What the agent answered: its final response (Markdown, shown as written), or the end of a command agent's output (shown as text). */
export type RunAnswer = { response: string } | { output: string } | null;

/** `language`: the automation owner's `language` setting (a BCP 47 tag); `null` for English. */
export function outcomeComment(run: RunRecord, automationName: string, answer: RunAnswer, runUrl: string | null, language: string | null = null): string {
  const words = commentLanguage(language);
  const headline = OUTCOMES.includes(run.status)
    ? words.phrases.outcome[run.status as OutcomeStatus](bold(automationName))
    : `${bold(automationName)} ${run.status.toLowerCase()}.`;
  const lines = [runMarker(run.id), headline, ''];
  if (run.status === 'COMPLETED') {
    if (answer && 'response' in answer && answer.response.trim()) lines.push(answer.response.trim().slice(0, MAX_ANSWER));
    else if (answer && 'output' in answer && answer.output.trim()) lines.push(quoted(answer.output, words));
    else lines.push(words.phrases.noAnswer);
  } else if (run.error_detail) {
    const budget = budgetRefusalOf(run.error_detail);
    if (budget) lines.push(words.phrases.notStartedBudget(words.usd(budget.spent), words.usd(budget.limit), words.moment(budget.resetsAt)), '');
    lines.push(quoted(run.error_detail, words));
  }
  lines.push('', runLine(run, runUrl, words, true));
  return lines.join('\n');
}

/**
 * The figures of a run a budget kept from starting, read from its `error_detail` as spend control
 * words it (`not started: budget exceeded: … budget of $X is spent ($Y …; it resets at <ISO
 * time>)`), for the comment's own sentence in the owner's language; `null` for any other detail.
 */
export function budgetRefusalOf(detail: string): { limit: number; spent: number; resetsAt: Date } | null {
  const found =
    /^not started: budget exceeded: .* budget of \$(\d+(?:\.\d+)?) is spent \(\$(\d+(?:\.\d+)?) [^;]*; it resets at (\d{4}-\d\d-\d\dT[\d:.]+Z)\)$/.exec(detail);
  if (!found) return null;
  const [, limit, spent, resets] = found;
  const resetsAt = new Date(resets ?? '');
  return Number.isNaN(resetsAt.getTime()) ? null : { limit: Number(limit), spent: Number(spent), resetsAt };
}

/** The run's comment while it works: what took it on, how solvable it looks (when estimated), and where to watch it; its outcome replaces it. */
export function onItComment(
  run: RunRecord,
  automationName: string,
  runUrl: string | null,
  estimate: { score: number; summary: string } | null,
  language: string | null = null,
): string {
  const words = commentLanguage(language);
  const lines = [runMarker(run.id), words.phrases.onIt(bold(automationName)), ''];
  if (estimate) lines.push(words.phrases.solvability(words.percent(Math.round(estimate.score * 100) / 100), estimate.summary.replace(/[\r\n]+/g, ' ')), '');
  lines.push(runLine(run, runUrl, words));
  return lines.join('\n');
}

/** What the held comment shows of an action (a `PendingAction`). */
type HeldAction = Pick<PendingAction, 'toolName' | 'summary' | 'securityRisk' | 'securityReason'>;

/** An action the run's agent holds for approval: what it will do, how risky the owner's security analyzer rates it, and how to answer it from the thread. */
export function heldComment(run: RunRecord, automationName: string, action: HeldAction, runUrl: string | null, language: string | null = null): string {
  const words = commentLanguage(language);
  // The reason may hold names the model chose (a branch, a path): code, so it cannot mention or link anyone.
  const reason = action.securityReason ? ` — \`${action.securityReason.replace(/[`\r\n]+/g, ' ')}\`` : '';
  const risk = action.securityRisk ? [`${words.phrases.risk(`**${action.securityRisk}**`)}${reason}`, ''] : [];
  return [
    `${PLATFORM_MARKER} run ${run.id} held -->`,
    words.phrases.held(bold(automationName), `\`${action.toolName.replace(/`/g, '')}\``),
    '',
    quoted(action.summary ?? words.phrases.noSummary, words),
    '',
    ...risk,
    words.phrases.howToApprove,
    '',
    runLine(run, runUrl, words),
  ].join('\n');
}
