/**
 * `@agent-platform/testing/flaky-runtime`: a sandbox runtime wrapper whose first starts fail, for
 * testing retries, without vitest (tests may import it from the main entry too).
 * @module
 */
export { flakyStartRuntime } from './sandbox/flaky-runtime.js';
