/**
 * The reference server's Docker engines (`AGENT_PLATFORM_DOCKER_HOSTS`): sandboxes placed across
 * several engines instead of the one `DOCKER_HOST` names.
 * @module
 */
import { isPlatformError } from '@agent-platform/core';
import { resolveEngines } from '@agent-platform/sandbox-docker';

/**
 * The engines listed, comma-separated (`unix:///var/run/docker.sock,east=tcp://10.0.0.5:2375`):
 * empty when unset (one engine, `DOCKER_HOST` or the local socket). Each entry is checked as the
 * runtime will read it; `fail(message)` is thrown for one it cannot use, or for a list set
 * without the Docker runtime.
 */
export function parseDockerHosts(value: string | undefined, sandbox: 'process' | 'docker', fail: (message: string) => Error): string[] {
  const hosts = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (hosts.length === 0) return [];
  if (sandbox !== 'docker') throw fail('AGENT_PLATFORM_DOCKER_HOSTS needs AGENT_PLATFORM_SANDBOX=docker: the process runtime runs no containers');
  try {
    resolveEngines(hosts);
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    const index = error.issues?.[0]?.loc[1];
    throw fail(`AGENT_PLATFORM_DOCKER_HOSTS${typeof index === 'number' ? ` entry ${index + 1}` : ''}: ${error.message}`);
  }
  return hosts;
}
