/**
 * The conformance suite against PGlite: one in-memory instance for the whole file (creating one
 * takes seconds), a fresh adapter over it per test; closing an adapter leaves the instance open.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { testStorageAdapter } from '@agent-platform/testing';
import { createPGliteStorage, migrate } from './index.js';

let db: PGlite;

beforeAll(async () => {
  db = await PGlite.create();
  await migrate({ db });
}, 60_000);

afterAll(async () => {
  await db?.close();
});

testStorageAdapter('pglite', () => createPGliteStorage({ db }), { timeout: 30_000 });
