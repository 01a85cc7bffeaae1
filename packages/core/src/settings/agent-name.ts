/**
 * The `agent` setting's check at save: a name the host's agents do not answer to is a 422 that
 * lists the names there are, so a typo is caught when it is made, not when a run picks the
 * default instead. Without a catalog (a platform given a plain runner, or none) any name is kept.
 * @module
 */
import type { AgentCatalog } from '../agents/agent-router.js';
import { validationError } from '../kernel/errors.js';
import { echoedKey } from '../kernel/validation.js';

/** Throws a 422 at `loc` when `name` is set and `agents` does not know it. */
export function checkAgentName(name: string | null | undefined, agents: AgentCatalog | null, loc: (string | number)[]): void {
  // Unset (null or "") is the default agent.
  if (!name || !agents || agents.knows(name)) return;
  throw validationError(
    loc,
    `unknown agent "${echoedKey(name)}": the agents here are ${agents.names().join(', ')} (GET /api/options/agents lists them)`,
    'enum',
  );
}

/** Where a V1 save (`POST /api/v1/settings`) names `agent`: flat, or in `agent_settings_diff`. */
export function v1AgentLoc(input: unknown): (string | number)[] {
  const flat = typeof input === 'object' && input !== null && Object.hasOwn(input, 'agent');
  return flat ? ['body', 'agent'] : ['body', 'agent_settings_diff', 'agent'];
}
