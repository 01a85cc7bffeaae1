import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandAgentRunnerOptions } from '@agent-platform/core';

/** Where the demo agent is written in each sandbox, relative to its working directory. */
export const DEMO_AGENT_PATH = '.agent-platform/demo-agent.sh';

/**
 * The command runner's options for the demo agent (`agents/demo-agent.sh`): the script is copied
 * into the sandbox with each run and run with `sh`, so it works on every runtime and image.
 */
export function demoAgent(): Pick<CommandAgentRunnerOptions, 'command' | 'files'> {
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../agents/demo-agent.sh');
  return { command: `sh ${DEMO_AGENT_PATH}`, files: [{ path: DEMO_AGENT_PATH, content: readFileSync(script, 'utf8'), mode: 0o755 }] };
}
