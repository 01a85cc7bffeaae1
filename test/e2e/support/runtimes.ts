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

async function dockerReady(): Promise<boolean> {
  try {
    const docker = new Dockerode();
    await docker.ping();
    await docker.getImage(TEST_IMAGE).inspect();
    return true;
  } catch (error) {
    if (process.env.CI === 'true' || process.env.AGENT_PLATFORM_DOCKER_TESTS === '1') {
      throw new Error(`no Docker engine with ${TEST_IMAGE} (run scripts/docker-setup.sh): ${String(error)}`);
    }
    return false;
  }
}

/** The runtimes to run on; registers a skipped test named `skipTitle` when Docker is not there. */
export async function serverRuntimes(skipTitle: string): Promise<RuntimeCase[]> {
  const runtimes: RuntimeCase[] = [{ name: 'process', env: { AGENT_PLATFORM_SANDBOX: 'process' } }];
  if (await dockerReady()) runtimes.push({ name: 'docker', env: { AGENT_PLATFORM_SANDBOX: 'docker', AGENT_PLATFORM_DOCKER_IMAGES: TEST_IMAGE } });
  else describe(skipTitle, () => it.skip('no Docker engine here (scripts/docker-setup.sh starts one)', () => {}));
  return runtimes;
}
