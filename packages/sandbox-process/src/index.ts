/**
 * `@agent-platform/sandbox-process`: the local-process `SandboxRuntime`, the embedded default.
 * A sandbox is a directory and its commands are child processes of the host, with a clean
 * environment and bounded time and output. Convenient for development and trusted workloads,
 * but **not an isolation boundary**, and resource `limits` are ignored: see
 * {@link createProcessRuntime}.
 * @module
 */
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_PATH,
  DEFAULT_SPEC_ID,
  RUNTIME_NAME,
  createProcessRuntime,
} from './process-runtime.js';
export type { ProcessRuntimeOptions } from './process-runtime.js';
