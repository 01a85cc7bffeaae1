/**
 * Which rated actions wait for the user in confirmation mode, as OpenHands' `ConfirmRisky`
 * policy decides: those rated at or above the threshold (default HIGH), and every unrated one
 * (UNKNOWN). Without an analyzer nothing is rated, so every action that changes something waits.
 * @module
 */
import type { ConfirmationThreshold, SecurityRating, SecurityRisk } from '../schemas/security-risk.js';

/** OpenHands' default threshold: only HIGH (and unrated) actions wait. */
export const DEFAULT_CONFIRMATION_THRESHOLD: ConfirmationThreshold = 'HIGH';

const RANK: Record<SecurityRisk, number> = { UNKNOWN: -1, LOW: 0, MEDIUM: 1, HIGH: 2 };

/** Whether an action rated `risk` waits for the user under `threshold`. */
export function requiresConfirmation(risk: SecurityRisk, threshold: ConfirmationThreshold = DEFAULT_CONFIRMATION_THRESHOLD): boolean {
  return risk === 'UNKNOWN' || RANK[risk] >= RANK[threshold];
}

/** The worse of ratings: the highest risk (the first of equals); UNKNOWN only when every one is. */
export function worstRating(ratings: readonly SecurityRating[]): SecurityRating | null {
  let worst: SecurityRating | null = null;
  for (const rating of ratings) if (!worst || RANK[rating.risk] > RANK[worst.risk]) worst = rating;
  return worst;
}
