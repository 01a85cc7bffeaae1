/**
 * The names the `security_analyzer` setting may take: the built-in `llm` and `policy`, and the
 * ones a host registered on its agent runner (`AgentRunner.securityAnalyzers`). A saved name
 * outside them is a 422 listing them, so a typo is caught when it is made rather than leaving
 * actions unrated. `null` or `""` is no analyzer. OpenHands' `llm` is ours; its `invariant`
 * (a separate server) is not offered here and is refused with the list.
 * @module
 */
import type { AgentRunner } from '../ports/agent-runner.js';
import { validationError } from '../kernel/errors.js';
import { echoedKey } from '../kernel/validation.js';

/** The analyzers every platform knows: the model rates its own actions (`llm`), or this platform's rules do (`policy`). */
export const BUILT_IN_SECURITY_ANALYZERS = ['llm', 'policy'] as const;

/** The built-in names, then those `agent` rates with (a router: those of all its runners). */
export function securityAnalyzerNames(agent: AgentRunner | null | undefined): string[] {
  return [...new Set([...BUILT_IN_SECURITY_ANALYZERS, ...(agent?.securityAnalyzers ?? [])])];
}

/** Throws a 422 at `loc` when `name` is set and not one of `known`. */
export function checkSecurityAnalyzer(name: string | null | undefined, known: readonly string[], loc: (string | number)[]): void {
  if (!name || known.includes(name)) return;
  throw validationError(loc, `unknown security analyzer "${echoedKey(name)}": the analyzers here are ${known.join(', ')} (or null for none)`, 'enum');
}

/** Where a V1 save (`POST /api/v1/settings`) names `security_analyzer`: flat, or in `conversation_settings_diff`. */
export function v1SecurityAnalyzerLoc(input: unknown): (string | number)[] {
  const flat = typeof input === 'object' && input !== null && Object.hasOwn(input, 'security_analyzer');
  return flat ? ['body', 'security_analyzer'] : ['body', 'conversation_settings_diff', 'security_analyzer'];
}
