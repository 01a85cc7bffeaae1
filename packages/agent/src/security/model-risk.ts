/**
 * The `llm` analyzer's side of the tool calls, as OpenHands does it: every tool that changes
 * something gets a required `security_risk` argument (LOW, MEDIUM or HIGH) in the JSON Schema the
 * model is given, the system prompt says what each level means, and each call's value is taken
 * off its arguments before the tool checks them (so no tool ever sees it) and becomes the call's
 * rating; a missing or unknown value is no rating (UNKNOWN).
 * @module
 */
import type { SecurityRisk } from '@agent-platform/core';
import type { JSONSchema7 } from '@ai-sdk/provider';

export const SECURITY_RISK_ARGUMENT = 'security_risk';

/** The levels the model chooses from. */
const LEVELS = ['LOW', 'MEDIUM', 'HIGH'] as const;
type ModelRisk = Exclude<SecurityRisk, 'UNKNOWN'>;

/** OpenHands' description of the argument. */
const DESCRIPTION =
  "The LLM's assessment of the safety risk of this action. See the SECURITY_RISK_ASSESSMENT section in the system prompt for risk level definitions.";

/** What the system prompt says of the levels (OpenHands' sandbox wording). */
export const RISK_ASSESSMENT_PROMPT = [
  '<SECURITY_RISK_ASSESSMENT>',
  'When using tools that support the security_risk parameter, assess the safety risk of your actions:',
  '- LOW: Read-only actions inside the sandbox: inspecting files, calculations, viewing docs.',
  '- MEDIUM: Container-scoped edits and installs: modifying workspace files, installing packages inside the sandbox, running user code.',
  '- HIGH: Data exfiltration or privilege breaks: sending secrets or local data out, connecting to the host filesystem, privileged container operations, running unverified binaries with network access, rewriting or deleting shared history (a force push to the default branch).',
  'Always escalate to HIGH if sensitive data leaves the environment.',
  '</SECURITY_RISK_ASSESSMENT>',
].join('\n');

/**
 * `schema` with a required `security_risk` property; `null` when it cannot take one (not an
 * object schema, or it has a `security_risk` of its own, which the tool needs).
 */
export function withRiskArgument(schema: JSONSchema7): JSONSchema7 | null {
  if (schema.type !== undefined && schema.type !== 'object') return null;
  if (schema.properties && Object.hasOwn(schema.properties, SECURITY_RISK_ARGUMENT)) return null;
  return {
    ...schema,
    type: 'object',
    properties: { ...schema.properties, [SECURITY_RISK_ARGUMENT]: { type: 'string', enum: [...LEVELS], description: DESCRIPTION } },
    required: [...(schema.required ?? []), SECURITY_RISK_ARGUMENT],
  };
}

/** A call's arguments without `security_risk`, and the rating it held (`null`: none, or not a level). */
export function takeModelRisk(input: unknown): { args: unknown; modelRisk: ModelRisk | null } {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, SECURITY_RISK_ARGUMENT)) {
    return { args: input, modelRisk: null };
  }
  const { [SECURITY_RISK_ARGUMENT]: value, ...args } = input as Record<string, unknown>;
  const level = typeof value === 'string' ? value.trim().toUpperCase() : '';
  return { args, modelRisk: (LEVELS as readonly string[]).includes(level) ? (level as ModelRisk) : null };
}
