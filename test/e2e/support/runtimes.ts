/**
 * The sandbox runtimes an end-to-end file runs on, as reference-server environments: the process
 * runtime always, and Docker when an engine with the test image is there. In CI (or with
 * AGENT_PLATFORM_DOCKER_TESTS=1) a missing engine is an error, not a skip.
 */
import Dockerode from 'dockerode';
import { describe, it } from 'vitest';

export const TEST_IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';

export interface RuntimeCase {
  name: 'process' | 'docker';
  env: Record<string, string>;
}

/** `null` when an engine with the test image is there; else what is missing, in words. */
async function dockerMissing(): Promise<string | null> {
  const docker = new Dockerode();
  let missing: string | null = null;
  try {
    await docker.ping();
  } catch {
    missing = 'no Docker engine answers here (scripts/docker-setup.sh installs and starts one)';
  }
  if (missing === null) {
    try {
      await docker.getImage(TEST_IMAGE).inspect();
    } catch {
      missing = `the Docker engine runs, but the test image ${TEST_IMAGE} is missing (scripts/docker-setup.sh builds it)`;
    }
  }
  if (missing !== null && (process.env.CI === 'true' || process.env.AGENT_PLATFORM_DOCKER_TESTS === '1')) throw new Error(missing);
  return missing;
}

/** The runtimes to run on; registers a skipped test named `skipTitle` when Docker is not there. */
export async function serverRuntimes(skipTitle: string): Promise<RuntimeCase[]> {
  const runtimes: RuntimeCase[] = [{ name: 'process', env: { AGENT_PLATFORM_SANDBOX: 'process' } }];
  const missing = await dockerMissing();
  if (missing === null) runtimes.push({ name: 'docker', env: { AGENT_PLATFORM_SANDBOX: 'docker', AGENT_PLATFORM_DOCKER_IMAGES: TEST_IMAGE } });
  else describe(skipTitle, () => it.skip(missing, () => {}));
  return runtimes;
}
