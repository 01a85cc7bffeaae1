/**
 * Why an agent's work was stopped from outside, one list for runs and conversations: the reason
 * an agent job's signal is aborted with, and the reason its result gives back.
 * @module
 */

export const STOP_REASONS = ['cancelled', 'lease-lost', 'shutdown', 'paused', 'deleted'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** How each stop reads in the conversation's last status event. */
export const STOP_DESCRIPTIONS: Record<StopReason, string> = {
  cancelled: 'cancelled',
  'lease-lost': 'the run was taken over after its lease lapsed',
  shutdown: 'the executor shut down',
  paused: 'paused',
  deleted: 'the conversation was deleted',
};

/** Stops the work `controller` signals to, for `reason`; a second stop keeps the first reason. */
export function stopWork(controller: AbortController, reason: StopReason): void {
  controller.abort(reason);
}

/** Why `signal` stopped the work, or `null` while it goes on; an abort for any other reason reads as a cancel. */
export function stopReasonOf(signal: AbortSignal): StopReason | null {
  if (!signal.aborted) return null;
  const reason: unknown = signal.reason;
  return STOP_REASONS.includes(reason as StopReason) ? (reason as StopReason) : 'cancelled';
}
