/**
 * When the console's sound plays (the `enable_sound_notifications` setting): a conversation or a
 * run reaching a final state, or a conversation starting to wait for confirmation — on a change
 * this tab saw happen, from a status it showed before (or from starting the conversation or run
 * itself). A record first seen already finished makes no sound, and the statuses are kept for the
 * whole tab, so opening a finished run from its list does not play it again.
 *
 * Pure (no DOM, no Preact), so the unit tests import it directly; status-sound.ts plays it.
 */
import { FINAL_RUN_STATUSES, type AppConversation } from '@agent-platform/client';

/** Which sound plays: a conversation or run that ended, or a conversation waiting for confirmation. */
export type ChimeKind = 'finished' | 'waiting';

type ConversationStatus = AppConversation['execution_status'];

/** The conversation statuses that sound, and how. */
const CONVERSATION_SOUNDS: Partial<Record<ConversationStatus, ChimeKind>> = {
  waiting_for_confirmation: 'waiting',
  finished: 'finished',
  error: 'finished',
  stuck: 'finished',
  stopped: 'finished',
};

/** The sound a record's new status calls for, if any. */
export function soundFor(kind: 'conversation' | 'run', status: string): ChimeKind | null {
  if (kind === 'run') return (FINAL_RUN_STATUSES as readonly string[]).includes(status) ? 'finished' : null;
  return CONVERSATION_SOUNDS[status as ConversationStatus] ?? null;
}

/** Each record's status as this tab last saw it, by `kind:id`. */
const seen = new Map<string, string>();
/** What a record this tab started is, until its status is first loaded. */
const STARTED = 'started here';

/**
 * Notes the statuses seen now; answers the sound one of them calls for (the first), if a status
 * changed to one that sounds. Pages call it through status-sound.ts's `useStatusSound`.
 */
export function observeStatuses(kind: 'conversation' | 'run', records: readonly { id: string; status: string }[]): ChimeKind | null {
  let sound: ChimeKind | null = null;
  for (const { id, status } of records) {
    const key = `${kind}:${id}`;
    const before = seen.get(key);
    seen.set(key, status);
    if (before !== undefined && before !== status) sound ??= soundFor(kind, status);
  }
  return sound;
}

/**
 * A conversation or run this tab just started: its first loaded status sounds if it is already
 * final (a quick agent may finish before its page first asks).
 */
export function startedHere(kind: 'conversation' | 'run', id: string): void {
  if (!seen.has(`${kind}:${id}`)) seen.set(`${kind}:${id}`, STARTED);
}
