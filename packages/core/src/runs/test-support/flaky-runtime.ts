import { createProcessRuntime } from '@agent-platform/sandbox-process';
import type { SandboxRuntime } from '../../ports/sandbox-runtime.js';

/** A real process runtime whose first `failures` sandbox starts throw "no capacity" (a retryable start failure). */
export function flakyStartRuntime(failures: number): SandboxRuntime {
  const inner = createProcessRuntime();
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
