/**
 * An action's security rating as the console shows it: the risk the owner's security analyzer
 * gave it (LOW, MEDIUM, HIGH, or UNKNOWN when it could not tell) and why, in a few words.
 */
import { isAgentEvent, type ConversationEvent } from '@agent-platform/client';

/** The rating of an `ActionEvent`; `null` for other events and for actions no analyzer rated. */
export function ratingOf(event: ConversationEvent | null): { risk: string; reason: string | null } | null {
  if (!event || !isAgentEvent(event, 'ActionEvent')) return null;
  const { security_risk: risk, security_risk_reason: reason } = event.data;
  // An action nobody rated is UNKNOWN without a reason: nothing to show.
  if (risk === 'UNKNOWN' && !reason) return null;
  return { risk, reason: reason ?? null };
}
