/**
 * `@agent-platform/testing/fake-llm`: the scripted fake LLM server on its own, without vitest (for
 * benchmarks and dev scripts; tests may import it from the main entry too).
 * @module
 */
export * from './fake-llm/index.js';
