/**
 * The comment a run leaves in the thread that started it: the outcome, the agent's final answer
 * (or why it failed), and a link to the run. A hidden marker names the run, so a later attempt,
 * or a worker that lost track of the comment's id, finds it and edits it instead of posting a
 * second one.
 * @module
 */
import type { RunRecord } from '../schemas/run.js';
import { PLATFORM_MARKER } from './platform-marker.js';

/** GitHub refuses comment bodies over 65,536 characters; the answer is cut well before. */
const MAX_ANSWER = 60_000;

export const runMarker = (runId: string): string => `${PLATFORM_MARKER} run ${runId} -->`;

const HEADLINES: Record<string, string> = {
  COMPLETED: '✅ completed',
  FAILED: '❌ failed',
  CANCELLED: '⏹️ was cancelled',
  SKIPPED: '⏭️ was skipped',
};

/** Markdown that shows `text` as it is: a fenced block longer than any backtick run inside it. */
function quoted(text: string): string {
  const cut = text.length > MAX_ANSWER ? `${text.slice(0, MAX_ANSWER)}\n… (cut: ${text.length - MAX_ANSWER} more characters in the run's conversation)` : text;
  const longest = Math.max(2, ...[...cut.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${cut}\n${fence}`;
}

/** What the agent answered: its final response (Markdown, shown as written), or the end of a command agent's output (shown as text). */
export type RunAnswer = { response: string } | { output: string } | null;

export function outcomeComment(run: RunRecord, automationName: string, answer: RunAnswer, runUrl: string | null): string {
  const lines = [runMarker(run.id), `**${automationName.replace(/[*_`[\]<>]/g, '')}** ${HEADLINES[run.status] ?? run.status.toLowerCase()}.`, ''];
  if (run.status === 'COMPLETED') {
    if (answer && 'response' in answer && answer.response.trim()) lines.push(answer.response.trim().slice(0, MAX_ANSWER));
    else if (answer && 'output' in answer && answer.output.trim()) lines.push(quoted(answer.output));
    else lines.push('_The agent gave no final answer._');
  } else if (run.error_detail) lines.push(quoted(run.error_detail));
  lines.push('');
  const attempts = run.attempt > 1 ? ` · ${run.attempt} attempts` : '';
  lines.push(runUrl ? `[Run \`${run.id}\`](${runUrl})${attempts}` : `Run \`${run.id}\`${attempts}`);
  return lines.join('\n');
}

/** The run's comment while it works: what took it on, how solvable it looks (when estimated), and where to watch it; its outcome replaces it. */
export function onItComment(run: RunRecord, automationName: string, runUrl: string | null, estimate: { score: number; summary: string } | null): string {
  const link = runUrl ? `[Run \`${run.id}\`](${runUrl})` : `Run \`${run.id}\``;
  const lines = [runMarker(run.id), `👀 **${automationName.replace(/[*_`[\]<>]/g, '')}** is on it.`, ''];
  if (estimate) lines.push(`Solvability: **${Math.round(estimate.score * 100)}%** — ${estimate.summary.replace(/[\r\n]+/g, ' ')}`, '');
  lines.push(link);
  return lines.join('\n');
}

/** An action the run's agent holds for approval: what it will do, and how to answer it from the thread. */
export function heldComment(run: RunRecord, automationName: string, action: { toolName: string; summary: string | null }, runUrl: string | null): string {
  const link = runUrl ? `[Run \`${run.id}\`](${runUrl})` : `Run \`${run.id}\``;
  return [
    `${PLATFORM_MARKER} run ${run.id} held -->`,
    `⏸️ **${automationName.replace(/[*_`[\]<>]/g, '')}** waits for approval to use \`${action.toolName.replace(/`/g, '')}\`:`,
    '',
    quoted(action.summary ?? '(no summary)'),
    '',
    'Reply `/approve` to let it, or `/reject` with a reason to refuse (people who may command the agent).',
    '',
    link,
  ].join('\n');
}
