/**
 * `migrationStatus()`, what readiness reads: the newest migration the database has against the
 * newest this code knows, on PGlite and on a real server; a database nobody migrated (opened with
 * `migrate: false`) is at 0, and nothing is created by asking.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteStorage, createPostgresStorage, migrate, MIGRATIONS } from './index.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const available = await postgresAvailable();
const latest = MIGRATIONS.length;
const databases: ThrowawayDatabase[] = [];

afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

describe('migrationStatus on PGlite', { timeout: 60_000 }, () => {
  it('is at the latest migration once migrated, at 0 before, and asking creates nothing', async () => {
    const db = await PGlite.create();
    const unmigrated = await createPGliteStorage({ db, migrate: false });
    expect(await unmigrated.migrationStatus?.()).toEqual({ applied: 0, latest });
    expect((await db.query("SELECT to_regclass('agent_platform.schema_migrations') AS t")).rows).toEqual([{ t: null }]);
    const migrated = await createPGliteStorage({ db });
    expect(await migrated.migrationStatus?.()).toEqual({ applied: latest, latest });
    await db.close();
  });
});

describe.skipIf(!available)('migrationStatus on PostgreSQL', { timeout: 30_000 }, () => {
  it('follows the migrations a deploy step applies, and throws once the storage is closed', async () => {
    const database = await createThrowawayDatabase();
    databases.push(database);
    const storage = await createPostgresStorage({ connectionString: database.url, migrate: false });
    expect(await storage.migrationStatus?.()).toEqual({ applied: 0, latest });
    await migrate({ connectionString: database.url });
    expect(await storage.migrationStatus?.()).toEqual({ applied: latest, latest });
    await storage.close();
    await expect(storage.migrationStatus?.()).rejects.toThrow();
  });
});
