/**
 * The per-test runtime lifecycle and options shared by the sandbox conformance groups.
 * @module
 */
import { afterEach, beforeEach } from 'vitest';
import type { RuntimeSandbox, SandboxRuntime, StartSandboxInput } from '@agent-platform/core';
import { uniqueId } from '../fixtures/records.js';

/** Builds a fresh runtime for one test; the suite closes it after the test. */
export type SandboxRuntimeFactory = () => Promise<SandboxRuntime> | SandboxRuntime;

export interface TestSandboxRuntimeOptions {
  /** Per-test and per-hook timeout in milliseconds (default 30,000: sandboxes can be slow to start). */
  timeout?: number;
  /** The spec sandboxes are started from (default: the runtime's first, its default). */
  specId?: string;
  /**
   * Whether the runtime applies `SandboxFile.mode` (default true). When false, the suite checks
   * file contents only.
   */
  fileModes?: boolean;
  /**
   * Whether `RuntimeSandbox.workingDir` is a path on the machine running the tests (true for the
   * process runtime; false for containers, whose paths only exist inside). When true, the suite
   * also checks on disk that delete and close remove the working directory and that a paused
   * sandbox's files stop changing.
   */
  workingDirOnHost?: boolean;
}

/** What each conformance group receives. */
export interface SuiteContext {
  /** The runtime of the running test; only valid inside `it`. */
  readonly runtime: SandboxRuntime;
  /** Builds another runtime with the same options; the test closes it itself. */
  readonly factory: SandboxRuntimeFactory;
  readonly timeout: number;
  readonly fileModes: boolean;
  readonly workingDirOnHost: boolean;
  /** The spec id sandboxes are started from on `runtime` (resolved per test). */
  specIdFor(runtime: SandboxRuntime): Promise<string>;
  /** Starts a sandbox with a fresh id on `runtime` (default: the test's runtime). */
  start(input?: Partial<StartSandboxInput>, runtime?: SandboxRuntime): Promise<RuntimeSandbox>;
}

export const DEFAULT_SUITE_TIMEOUT = 30_000;

/** Registers the hooks that give every test its own runtime, and closes it afterwards. */
export function useRuntime(factory: SandboxRuntimeFactory, options: TestSandboxRuntimeOptions): SuiteContext {
  const timeout = options.timeout ?? DEFAULT_SUITE_TIMEOUT;
  let current: SandboxRuntime | undefined;

  beforeEach(async () => {
    current = await factory();
  }, timeout);

  afterEach(async () => {
    const runtime = current;
    current = undefined;
    await runtime?.close();
  }, timeout);

  const ctx: SuiteContext = {
    get runtime(): SandboxRuntime {
      if (!current) throw new Error('testSandboxRuntime: the runtime is only available inside a test');
      return current;
    },
    factory,
    timeout,
    fileModes: options.fileModes ?? true,
    workingDirOnHost: options.workingDirOnHost ?? false,
    async specIdFor(runtime) {
      if (options.specId !== undefined) return options.specId;
      const [first] = await runtime.listSpecs();
      if (!first) throw new Error('testSandboxRuntime: the runtime lists no sandbox specs');
      return first.id;
    },
    async start(input = {}, runtime = ctx.runtime) {
      return runtime.start({
        sandboxId: uniqueId('sbx'),
        specId: await ctx.specIdFor(runtime),
        ...input,
      });
    },
  };
  return ctx;
}
