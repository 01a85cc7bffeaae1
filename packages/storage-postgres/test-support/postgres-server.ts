/**
 * The PostgreSQL server the tests run against, and throwaway databases on it: each test file
 * creates its own (`ap_test_<random>`) and drops it afterwards, so runs never collide.
 *
 * The server is `AGENT_PLATFORM_TEST_DATABASE_URL` (default the local trust-auth server). When it
 * cannot be reached the PostgreSQL tests are skipped — except in CI (`CI=true`), where that is a
 * failure: CI must test against the real thing.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const ADMIN_URL = process.env.AGENT_PLATFORM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Whether the server answers; throws in CI when it does not. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    if (process.env.CI === 'true') {
      throw new Error(
        `PostgreSQL at AGENT_PLATFORM_TEST_DATABASE_URL (or the default ${'postgres://postgres@127.0.0.1:5432/postgres'}) is unreachable, and CI must run these tests: ${String(error)}`,
      );
    }
    console.warn(`storage-postgres: skipping the PostgreSQL tests, the server is unreachable (${String(error)})`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface ThrowawayDatabase {
  readonly name: string;
  /** The database's URL (the admin URL with its name). */
  readonly url: string;
  drop(): Promise<void>;
}

async function admin<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function createThrowawayDatabase(): Promise<ThrowawayDatabase> {
  const name = `ap_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Ends every connection to `database` but the caller's (what a server restart does to a pool), or
 * only those whose `application_name` is `applicationName`; resolves with how many, once each was
 * told to end: a backend ends, and its client hears of it, a moment later.
 */
export async function terminateConnections(database: string, applicationName?: string): Promise<number> {
  return admin(async (client) => {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = $1 AND pid <> pg_backend_pid() AND ($2::text IS NULL OR application_name = $2)`,
      [database, applicationName ?? null],
    );
    return rows[0]?.n ?? 0;
  });
}
