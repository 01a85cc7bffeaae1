import { testSandboxRuntime } from '@agent-platform/testing';
import { createDockerRuntime } from './index.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

// In CI the engine is there (.ci/run starts it), and this suite must run, not skip.
const available = await dockerAvailable();

if (available) {
  testSandboxRuntime('docker', () => createDockerRuntime({ images: [TEST_IMAGE] }), { timeout: 60_000 });
}
