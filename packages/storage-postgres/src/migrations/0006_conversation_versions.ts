/**
 * A conversation's write version, in a column of its own: every patch bumps it in the same
 * UPDATE, and a guarded patch compares it in its WHERE, so of concurrent writes decided from one
 * read exactly one lands (the others re-check the guard on the row they waited for, and miss).
 *
 * The column is the version's one copy: `data` never holds it, and reads add it to the record.
 * Rows written before start at 0, from the column's default — a constant default, so adding the
 * column rewrites no row.
 * @module
 */
import type { Migration } from './migration.js';

export const conversationVersionsMigration: Migration = {
  version: 6,
  name: 'conversation_versions',
  sql: /* sql */ `
ALTER TABLE agent_platform.conversations ADD COLUMN version integer NOT NULL DEFAULT 0;
`,
};
