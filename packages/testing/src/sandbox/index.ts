/**
 * The `SandboxRuntime` conformance suite.
 * @module
 */
import { describe } from 'vitest';
import { DEFAULT_SUITE_TIMEOUT, useRuntime } from './context.js';
import type { SandboxRuntimeFactory, TestSandboxRuntimeOptions } from './context.js';
import { describeExec } from './exec.js';
import { describeIsolation } from './isolation.js';
import { describeLifecycle } from './lifecycle.js';
import { describeOwnerChoices } from './owner-choices.js';
import { describePause } from './pause.js';
import { describeStdin } from './stdin.js';

export type { SandboxRuntimeFactory, TestSandboxRuntimeOptions } from './context.js';

/**
 * Registers the conformance suite for a `SandboxRuntime` with vitest. Call it at the top level
 * of a test file. Each test gets a fresh runtime from `factory` and closes it afterwards; a few
 * tests build a second runtime with `factory` (to check that the host environment does not
 * leak, and that `close()` leaves nothing a fresh runtime could find).
 *
 * The commands it runs need a POSIX `sh` with `echo`, `printf`, `read`, `sleep` (fractional
 * seconds), `cat`, `ls`, `test`, `touch`, `head`, `tr`, `od`, `cut`, `env`, `grep`, `wc` and
 * `md5sum`, and `/dev/zero`: any Linux image with coreutils or busybox has them.
 *
 * A runtime with `allowedImages` must be able to start a sandbox from the first exact reference
 * it lists (the Docker runtime: its first spec's image).
 *
 * Time bounds are liveness checks only (a 30 s sleep with a 300 ms timeout must end within
 * 10 s), never speed checks.
 *
 * @param name - Shown in the suite's title.
 * @param factory - Builds the runtime under test.
 * @param options - Timeouts, the spec to use, and what the runtime can be checked for.
 *
 * @example
 * ```ts
 * // packages/sandbox-process/src/process-runtime.test.ts
 * import { testSandboxRuntime } from '@agent-platform/testing';
 * import { createProcessRuntime } from './index.js';
 *
 * testSandboxRuntime('process', () => createProcessRuntime(), { workingDirOnHost: true });
 *
 * // A container runtime: paths exist only inside, starts are slower.
 * testSandboxRuntime('docker', () => createDockerRuntime({ image: 'debian:bookworm-slim' }), {
 *   timeout: 120_000,
 * });
 * ```
 */
export function testSandboxRuntime(name: string, factory: SandboxRuntimeFactory, options: TestSandboxRuntimeOptions = {}): void {
  const timeout = options.timeout ?? DEFAULT_SUITE_TIMEOUT;
  describe(`SandboxRuntime conformance: ${name}`, { timeout }, () => {
    const ctx = useRuntime(factory, { ...options, timeout });
    describeLifecycle(ctx);
    describeExec(ctx);
    describeStdin(ctx);
    describePause(ctx);
    describeIsolation(ctx);
    describeOwnerChoices(ctx);
  });
}
