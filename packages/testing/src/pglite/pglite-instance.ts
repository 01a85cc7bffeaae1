/**
 * One in-memory PGlite instance for a test file (creating one takes seconds): created, and set up
 * (an adapter's migrations, say), before the file's tests, closed after them.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';

export interface UsePGliteOptions {
  /** Runs once on the new instance before the file's tests, e.g. `(db) => migrate({ db })`. */
  setup?: (db: PGlite) => Promise<unknown> | unknown;
  /** How long creating and setting up the instance may take, in ms (default 60 000). */
  timeout?: number;
}

/**
 * Registers `beforeAll`/`afterAll` hooks in the current file or `describe` block; the function it
 * returns gives the instance inside tests and hooks.
 */
export function usePGlite(options: UsePGliteOptions = {}): () => PGlite {
  let db: PGlite | undefined;
  beforeAll(async () => {
    db = await PGlite.create();
    await options.setup?.(db);
  }, options.timeout ?? 60_000);
  afterAll(async () => {
    await db?.close();
  });
  return () => {
    if (!db) throw new Error('the PGlite instance is only available inside tests and hooks');
    return db;
  };
}
