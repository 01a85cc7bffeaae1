import type { SandboxRuntime } from '@agent-platform/core';

/**
 * Wraps a runtime so that its first `failures` sandbox starts throw "no capacity" (a retryable
 * start failure), for testing what retries a failed start; everything else passes through.
 */
export function flakyStartRuntime(inner: SandboxRuntime, failures: number): SandboxRuntime {
  let left = failures;
  return {
    name: inner.name,
    listSpecs: () => inner.listSpecs(),
    inspect: (id) => inner.inspect(id),
    pause: (id) => inner.pause(id),
    resume: (id) => inner.resume(id),
    delete: (id) => inner.delete(id),
    exec: (id, input) => inner.exec(id, input),
    close: () => inner.close(),
    start: async (input) => {
      if (left-- > 0) throw new Error('no capacity');
      return inner.start(input);
    },
  };
}
