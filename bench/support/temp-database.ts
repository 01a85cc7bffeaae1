/**
 * A database of its own for one benchmark on the PostgreSQL server at `adminUrl`: created, its
 * URL handed to `work`, and dropped afterwards whatever happens.
 * @module
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export async function withTempDatabase<T>(adminUrl: string, work: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}
