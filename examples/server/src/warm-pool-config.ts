/**
 * The reference server's warm pool (`AGENT_PLATFORM_DOCKER_WARM_POOL`): Docker sandboxes of the
 * default image started ahead of time, so a run's first command does not wait for a container.
 * @module
 */
import type { ContainmentConfig } from './containment-config.js';

/** Most containers the setting may ask for. */
export const MAX_WARM_POOL = 100;

/**
 * How many containers of the default image (the first of `AGENT_PLATFORM_DOCKER_IMAGES`) to keep
 * started: 0 when unset. `fail(message)` is thrown for a value that is not a count, or one set
 * without the Docker runtime or with the egress allowlist (each sandbox gets its proxy at start).
 */
export function parseWarmPool(
  value: string | undefined,
  sandbox: 'process' | 'docker',
  containment: ContainmentConfig,
  fail: (message: string) => Error,
): number {
  const text = value?.trim();
  if (!text) return 0;
  const size = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(size) || size > MAX_WARM_POOL)
    throw fail(`AGENT_PLATFORM_DOCKER_WARM_POOL must be an integer from 0 to ${MAX_WARM_POOL}, got "${value}"`);
  if (size === 0) return 0;
  if (sandbox !== 'docker') throw fail('AGENT_PLATFORM_DOCKER_WARM_POOL needs AGENT_PLATFORM_SANDBOX=docker: the process runtime starts no containers');
  if (containment.egress) {
    throw fail('AGENT_PLATFORM_DOCKER_WARM_POOL cannot be combined with AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW: each sandbox gets its egress proxy at its start');
  }
  return size;
}

/** The runtime's `warmPool` option for the default image, or nothing. */
export function dockerWarmPool(size: number, images: readonly string[]): { warmPool?: Record<string, number> } {
  const [first] = images;
  return size > 0 && first ? { warmPool: { [first]: size } } : {};
}
