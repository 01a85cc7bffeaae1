/**
 * One migrated in-memory PGlite instance for a test file (creating one takes seconds): created
 * before the file's tests, closed after them.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { migrate } from '../index.js';

/** Registers the hooks; the function it returns gives the instance inside tests and hooks. */
export function useMigratedPGlite(): () => PGlite {
  let db: PGlite | undefined;
  beforeAll(async () => {
    db = await PGlite.create();
    await migrate({ db });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });
  return () => {
    if (!db) throw new Error('the PGlite instance is only available inside tests and hooks');
    return db;
  };
}
