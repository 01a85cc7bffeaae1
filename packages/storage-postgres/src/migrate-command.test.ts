/**
 * The `agent-platform-migrate` command: arguments, output, exit codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './index.js';
import { parseArguments, runMigrateCommand } from './migrate-command.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

const latest = MIGRATIONS.at(-1)?.version;
const appliedLines = MIGRATIONS.map((migration) => `applied ${String(migration.version).padStart(4, '0')}_${migration.name}`);

describe('parseArguments', () => {
  it('reads --database-url, --pglite or DATABASE_URL', () => {
    expect(parseArguments([], { DATABASE_URL: 'postgres://db/app' })).toEqual({ connectionString: 'postgres://db/app' });
    expect(parseArguments(['--database-url', 'postgres://a/b'], { DATABASE_URL: 'postgres://db/app' })).toEqual({ connectionString: 'postgres://a/b' });
    expect(parseArguments(['--pglite=./data'], { DATABASE_URL: 'postgres://db/app' })).toEqual({ dataDir: './data' });
    expect(parseArguments(['-h'], {})).toBe('help');
  });

  it('explains what is missing or wrong', () => {
    expect(parseArguments([], {})).toMatch(/set DATABASE_URL/);
    expect(parseArguments(['--pglite'], {})).toMatch(/needs a value/);
    expect(parseArguments(['--nope'], {})).toMatch(/unknown argument/);
    expect(parseArguments(['--pglite', 'x', '--database-url', 'y'], {})).toMatch(/not both/);
  });
});

describe('runMigrateCommand', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'agent-platform-migrate-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrates a PGlite directory, then finds it up to date', { timeout: 60_000 }, async () => {
    const first = capture();
    expect(await runMigrateCommand(['--pglite', dataDir], {}, first.output)).toBe(0);
    expect(first.out).toEqual([...appliedLines, `schema now at version ${latest}`]);
    const second = capture();
    expect(await runMigrateCommand(['--pglite', dataDir], {}, second.output)).toBe(0);
    expect(second.out).toEqual([`schema up to date at version ${latest}`]);
  });

  it('exits 2 with the usage for bad arguments, 1 without the password when the server is unreachable', async () => {
    const usage = capture();
    expect(await runMigrateCommand([], {}, usage.output)).toBe(2);
    expect(usage.err.join('\n')).toMatch(/Usage: agent-platform-migrate/);
    const down = capture();
    expect(await runMigrateCommand([], { DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:1/x' }, down.output)).toBe(1);
    expect(down.err.join('\n')).toMatch(/unavailable/);
    expect(down.err.join('\n')).not.toContain('s3cret');
  });
});

const available = await postgresAvailable();
describe.skipIf(!available)('runMigrateCommand on PostgreSQL', () => {
  let database: ThrowawayDatabase;
  afterAll(async () => {
    await database?.drop();
  });

  it('migrates DATABASE_URL', async () => {
    database = await createThrowawayDatabase();
    const run = capture();
    expect(await runMigrateCommand([], { DATABASE_URL: database.url }, run.output)).toBe(0);
    expect(run.out).toEqual([...appliedLines, `schema now at version ${latest}`]);
  });
});
