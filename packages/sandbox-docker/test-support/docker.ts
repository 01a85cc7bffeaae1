/**
 * Whether these tests can reach a Docker engine. Where they must run (CI, or
 * `AGENT_PLATFORM_DOCKER_TESTS=1`), an unreachable engine is an error, not a skip.
 * @module
 */
import Dockerode from 'dockerode';
import { describe, it } from 'vitest';

export const TEST_IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';
const required = process.env.CI === 'true' || process.env.AGENT_PLATFORM_DOCKER_TESTS === '1';

export async function dockerAvailable(): Promise<boolean> {
  const docker = new Dockerode();
  try {
    await docker.ping();
    await docker.getImage(TEST_IMAGE).inspect();
    return true;
  } catch (error) {
    const reason = `no Docker engine with ${TEST_IMAGE} (run scripts/docker-setup.sh): ${error instanceof Error ? error.message : String(error)}`;
    if (required) throw new Error(reason);
    describe('Docker runtime', () => it.skip(reason, () => {}));
    return false;
  }
}
