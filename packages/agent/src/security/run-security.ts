/**
 * A run's security analyzer: the one the owner's `security_analyzer` names — the built-in `llm`
 * or `policy`, or one the host registered on the runner — and the host's confirmation threshold.
 * Each tool call is rated before it runs; in confirmation mode only the calls rated at or above
 * the threshold (and unrated ones) wait for the user. Without an analyzer, or with a name nobody
 * registered (an old setting; the run notes it), nothing is rated and every call that changes
 * something waits, as before analyzers.
 * @module
 */
import {
  BUILT_IN_SECURITY_ANALYZERS,
  confirmationThresholdSchema,
  createPolicyAnalyzer,
  DEFAULT_CONFIRMATION_THRESHOLD,
  requiresConfirmation,
  securityRatingSchema,
  type AgentSettings,
  type ConfirmationThreshold,
  type SecurityAnalyzer,
  type SecurityContext,
  type SecurityRating,
  type SecurityRisk,
} from '@agent-platform/core';
import { redact } from '@agent-platform/core/adapter-kit';
import { llmSecurityAnalyzer } from './llm-analyzer.js';
import { RISK_ASSESSMENT_PROMPT } from './model-risk.js';
import { sandboxGit, type GitPlace } from './sandbox-git.js';

export interface SecurityOptions {
  /** Analyzers owners may name in `security_analyzer`, besides `llm` and `policy` (a host's wins over a built-in of the same name). */
  securityAnalyzers?: Record<string, SecurityAnalyzer>;
  /** In confirmation mode with an analyzer, the lowest rating that waits for the user. Default HIGH. */
  confirmationThreshold?: ConfirmationThreshold;
}

export interface RunSecurity {
  /** The owner's analyzer; `null`: none (every call that changes something waits in confirmation mode). */
  readonly analyzer: SecurityAnalyzer | null;
  readonly threshold: ConfirmationThreshold;
  /** The model rates its own calls: the tools get a `security_risk` argument. */
  readonly asksModel: boolean;
}

const policy = createPolicyAnalyzer();

/** The analyzers a runner with these options knows, by name. */
export function analyzersOf(options: SecurityOptions): Record<string, SecurityAnalyzer> {
  return { llm: llmSecurityAnalyzer, policy, ...options.securityAnalyzers };
}

/** Their names, for the platform to check the setting against. */
export const analyzerNames = (options: SecurityOptions): string[] => [
  ...new Set([...BUILT_IN_SECURITY_ANALYZERS, ...Object.keys(options.securityAnalyzers ?? {})]),
];

/** Refuses, when the runner is made, a threshold that is not LOW, MEDIUM or HIGH, or an analyzer without `rate`. */
export function checkSecurityOptions(options: SecurityOptions): void {
  const threshold = options.confirmationThreshold;
  if (threshold !== undefined && !confirmationThresholdSchema.safeParse(threshold).success) {
    throw new TypeError(`confirmationThreshold must be LOW, MEDIUM or HIGH, got ${JSON.stringify(threshold)}`);
  }
  for (const [name, analyzer] of Object.entries(options.securityAnalyzers ?? {})) {
    if (typeof analyzer?.rate !== 'function') throw new TypeError(`the security analyzer "${name}" has no rate function`);
  }
}

/** The run's analyzer and threshold; `unknown`: the owner named an analyzer nobody registered. */
export function runSecurity(settings: AgentSettings, options: SecurityOptions): { security: RunSecurity; unknown: string | null } {
  const name = settings.securityAnalyzer?.trim() || null;
  const analyzer = name ? (analyzersOf(options)[name] ?? null) : null;
  return {
    security: { analyzer, threshold: options.confirmationThreshold ?? DEFAULT_CONFIRMATION_THRESHOLD, asksModel: analyzer?.asksModel === true },
    unknown: name && !analyzer ? name : null,
  };
}

/** The system prompt, with what the risk levels mean when the model rates its own calls. */
export const withRiskAssessment = (prompt: string, security: RunSecurity): string => (security.asksModel ? `${prompt}\n\n${RISK_ASSESSMENT_PROMPT}` : prompt);

/** What a run tells its analyzer of itself: its secret variables, its code hosts, and its repository (read when asked). */
export function securityContext(settings: AgentSettings, place: GitPlace): SecurityContext {
  const codeHosts = Object.values(settings.providerTokens)
    .flatMap((entry) => (entry?.host ? [hostOf(entry.host)] : []))
    .filter((host): host is string => host !== null);
  const secretVariables = Object.keys(place.env).filter((name) => name in settings.customSecrets || /_TOKEN$/.test(name));
  return { secretVariables, codeHosts, git: sandboxGit(place) };
}

function hostOf(value: string): string | null {
  try {
    return new URL(value.includes('://') ? value : `https://${value}`).hostname || null;
  } catch {
    return null;
  }
}

/**
 * One call's rating, before it runs: what the analyzer says (a bad answer or a failure is
 * UNKNOWN), its reason scrubbed of the owner's secrets; `null` without an analyzer.
 */
export async function rateCall(
  run: { security: RunSecurity; secrets: readonly string[] },
  call: { toolName: string; actionKind: string; args: Record<string, unknown>; readOnly: boolean; modelRisk: Exclude<SecurityRisk, 'UNKNOWN'> | null },
  context: () => SecurityContext,
): Promise<SecurityRating | null> {
  const { analyzer } = run.security;
  if (!analyzer) return null;
  let rating: SecurityRating;
  try {
    const answer = securityRatingSchema.safeParse(await analyzer.rate({ ...call, context: context() }));
    rating = answer.success ? answer.data : { risk: 'UNKNOWN', reason: 'the security analyzer gave no rating' };
  } catch (error) {
    rating = { risk: 'UNKNOWN', reason: `the security analyzer failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  const reason = redact(rating.reason, run.secrets).replace(/\s+/g, ' ').trim();
  return { risk: rating.risk, reason: reason.length > 300 ? `${reason.slice(0, 299)}…` : reason };
}

/** Whether a call that changes something waits for the user in confirmation mode: every one without an analyzer, else by its rating. */
export const waitsForUser = (security: RunSecurity, rating: SecurityRating | null): boolean =>
  security.analyzer === null || requiresConfirmation(rating?.risk ?? 'UNKNOWN', security.threshold);
