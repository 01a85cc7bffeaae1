/**
 * `@agent-platform/testing/pglite`: one in-memory PGlite instance per test file, for testing an
 * adapter (or an app) against PostgreSQL without a server. Needs `@electric-sql/pglite` (an
 * optional peer dependency) and vitest; not on the main entry, so the main entry does not load PGlite.
 * @module
 */
export * from './pglite/index.js';
