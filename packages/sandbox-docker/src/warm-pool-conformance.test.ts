import Dockerode from 'dockerode';
import { testSandboxRuntime } from '@agent-platform/testing';
import { createDockerRuntime } from './index.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

// The conformance suite against a runtime whose starts are served by its warm pool: each test's
// runtime waits until its pool holds a container, so the suite's sandboxes are pooled ones.
const available = await dockerAvailable();
const docker = new Dockerode();
const PREFIX = `wpc${process.pid}-`;

async function pooledRuntime() {
  const runtime = createDockerRuntime({ images: [{ image: TEST_IMAGE, network: 'none' }], namePrefix: PREFIX, warmPool: { [TEST_IMAGE]: 1 } });
  const began = Date.now();
  for (;;) {
    const idle = await docker.listContainers({ filters: { name: [`^/${PREFIX}_pool-`] } });
    if (idle.length >= 1) return runtime;
    if (Date.now() - began > 60_000) throw new Error('the warm pool did not fill');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

if (available) testSandboxRuntime('docker (warm pool)', pooledRuntime, { timeout: 90_000 });
