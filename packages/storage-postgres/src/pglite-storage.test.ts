/**
 * The conformance suite against PGlite: one in-memory instance for the whole file (creating one
 * takes seconds), a fresh adapter over it per test; closing an adapter leaves the instance open.
 */
import { testStorageAdapter } from '@agent-platform/testing';
import { createPGliteStorage } from './index.js';
import { useMigratedPGlite } from '../test-support/pglite-instance.js';
import { tamperAuditEntry } from '../test-support/tamper-audit.js';

const db = useMigratedPGlite();

testStorageAdapter('pglite', () => createPGliteStorage({ db: db() }), {
  timeout: 30_000,
  tamperAuditEntry: tamperAuditEntry((text, params) => db().query(text, params)),
});
