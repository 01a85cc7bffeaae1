/**
 * `@agent-platform/testing/fixtures`: the record builders on their own, without the conformance
 * suites and so without vitest (for benchmarks, and tests that need records but no suite; the
 * main entry exports them too).
 * @module
 */
export * from './fixtures/records.js';
