/**
 * What distinguishes the repositories of a transaction from the adapter's own, so that one set of
 * repository code serves both.
 * @module
 */

export interface Access {
  /** Transactions read their own writes; everyone else reads committed state. */
  readonly view: 'live' | 'committed';
  /** Throws when the repositories may no longer be used. */
  check(): void;
  /** Runs a write against the live tables. */
  write<T>(op: () => T): Promise<T>;
}

/** The state of `source` this access reads (after checking it may still be used). */
export function readView<T>(access: Access, source: { readonly live: T; readonly committed: T }): T {
  access.check();
  return source[access.view];
}
