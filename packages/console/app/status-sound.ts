/**
 * The sound of the `enable_sound_notifications` setting: pages report the statuses of the
 * conversations and runs they show (on a record's page or in a list), and the sound plays when
 * one changes to a status that calls for it (status-changes.ts says which).
 */
import type { AppConversation, Run } from '@agent-platform/client';
import { useEffect } from 'preact/hooks';
import { playChime } from './chime.js';
import { usePreferences } from './preferences.js';
import { observeStatuses } from './status-changes.js';

export { startedHere } from './status-changes.js';

/**
 * Plays the sound when the records a page shows change to a status that sounds, while the user's
 * `enable_sound_notifications` setting is on. Statuses are noted either way, so turning sound on
 * does not play changes that happened before.
 */
export function useStatusSound(kind: 'conversation' | 'run', records: readonly { id: string; status: string }[] | undefined): void {
  const { sound } = usePreferences();
  const signature = records?.map((record) => `${record.id}=${record.status}`).join(',');
  useEffect(() => {
    if (!records) return;
    const chime = observeStatuses(kind, records);
    if (chime && sound) void playChime(chime);
    // The records are compared by their ids and statuses, not by the array's identity (a new one each poll).
  }, [kind, signature, sound]);
}

/** A conversation as {@link useStatusSound} reads it. */
export const conversationStatus = (conversation: AppConversation) => ({ id: conversation.id, status: conversation.execution_status });
/** A run as {@link useStatusSound} reads it. */
export const runStatus = (run: Run) => ({ id: run.id, status: run.status });
