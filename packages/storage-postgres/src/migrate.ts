/**
 * Applies the versioned migrations: in one READ COMMITTED transaction holding a transaction-level
 * advisory lock, so that of several processes starting at once one migrates and the others wait,
 * then find nothing left to do. `agent_platform.schema_migrations` records what was applied.
 * @module
 */
import { MIGRATIONS, type Migration } from './migrations/index.js';
import type { Backend, Sql } from './sql/sql.js';

/** A migration as recorded. */
export interface AppliedMigration {
  version: number;
  name: string;
}

export interface MigrationResult {
  /** What this call applied, in order; empty when the schema was up to date. */
  applied: AppliedMigration[];
  /** The schema version now (the highest applied). */
  version: number;
}

/** An arbitrary constant naming the lock; the same in every process ("agent-platform migrations"). */
const MIGRATION_LOCK = 4_612_871_337_207_411;

const VERSION_TABLE = /* sql */ `
CREATE SCHEMA IF NOT EXISTS agent_platform;
CREATE TABLE IF NOT EXISTS agent_platform.schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`;

export async function applyMigrations(backend: Backend, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationResult> {
  checkOrder(migrations);
  return backend.transaction(async (sql) => {
    // First, before anything reads or creates: the lock is what makes the rest race-free.
    await sql.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await sql.exec(VERSION_TABLE);
    const { rows } = await sql.query<AppliedMigration>('SELECT version, name FROM agent_platform.schema_migrations ORDER BY version');
    const recorded = new Map(rows.map((row) => [Number(row.version), row.name]));
    for (const migration of migrations) {
      const name = recorded.get(migration.version);
      if (name !== undefined && name !== migration.name) {
        throw new Error(
          `Migration ${migration.version} is recorded as "${name}" but this code calls it "${migration.name}": the database was migrated by different code`,
        );
      }
    }
    const pending = migrations.filter((migration) => !recorded.has(migration.version));
    for (const migration of pending) {
      await sql.exec(migration.sql);
      await sql.query('INSERT INTO agent_platform.schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    const versions = [...recorded.keys(), ...pending.map((migration) => migration.version)];
    return {
      applied: pending.map(({ version, name }) => ({ version, name })),
      version: versions.length === 0 ? 0 : Math.max(...versions),
    };
  }, 'read-committed');
}

/**
 * The newest migration the database has (0 when none, or when the version table does not exist:
 * a database nobody migrated), for readiness. Reads only: it takes no lock and creates nothing.
 */
export async function appliedVersion(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ present: boolean }>("SELECT to_regclass('agent_platform.schema_migrations') IS NOT NULL AS present");
  if (!rows[0]?.present) return 0;
  const latest = await sql.query<{ version: number | null }>('SELECT max(version) AS version FROM agent_platform.schema_migrations');
  return Number(latest.rows[0]?.version ?? 0);
}

/** Versions 1, 2, 3, ... in order: a gap or a repeat is a mistake in the list, caught before running. */
function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, n) => {
    if (migration.version !== n + 1) {
      throw new Error(`Migrations must be numbered 1, 2, 3, ... in order; found version ${migration.version} at position ${n + 1}`);
    }
  });
}
