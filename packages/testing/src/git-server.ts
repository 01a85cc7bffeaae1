/**
 * `@agent-platform/testing/git-server`: the git smart-HTTP test server on its own, without vitest
 * (for dev scripts and end-to-end setups; tests may import it from the main entry too).
 * @module
 */
export * from './git-server/index.js';
