/**
 * How risky an agent's action is, in OpenHands' words (`SecurityRisk`): a security analyzer rates
 * each action LOW, MEDIUM or HIGH, or leaves it UNKNOWN; in confirmation mode the actions rated
 * at or above a threshold wait for the user (OpenHands' `ConfirmRisky` policy).
 * @module
 */
import { z } from 'zod';

/** The ratings, lowest first after `UNKNOWN` (not rated, or an analyzer that could not tell). */
export const SECURITY_RISKS = ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'] as const;
export const securityRiskSchema = z.enum(SECURITY_RISKS);
export type SecurityRisk = z.infer<typeof securityRiskSchema>;

/** The lowest rating that waits for the user in confirmation mode (unrated actions always wait). */
export const confirmationThresholdSchema = z.enum(['LOW', 'MEDIUM', 'HIGH']);
export type ConfirmationThreshold = z.infer<typeof confirmationThresholdSchema>;

/** One action's rating and why, in a few words ("force push to main"). */
export const securityRatingSchema = z.object({ risk: securityRiskSchema, reason: z.string() });
export type SecurityRating = z.infer<typeof securityRatingSchema>;
