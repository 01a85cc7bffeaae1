/**
 * The shape of a versioned migration.
 * @module
 */

/** One step of the schema: applied once, in `version` order, recorded in `schema_migrations`. */
export interface Migration {
  /** 1, 2, 3, ... without gaps; never reused or renumbered once released. */
  readonly version: number;
  /** Short snake_case name, recorded beside the version. */
  readonly name: string;
  /** The statements, run together in the migrating transaction. */
  readonly sql: string;
}
