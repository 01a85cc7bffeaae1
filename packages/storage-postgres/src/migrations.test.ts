/**
 * Versioned migrations on a real server: applied once, idempotent, safe when several processes
 * start at once, recorded in `agent_platform.schema_migrations`.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, RunReport } from '@agent-platform/core';
import { makeConversationRecord, makeDeliveryRecord, makeRunRecord, makeRunReport } from '@agent-platform/testing';
import { createPostgresStorage, migrate, MIGRATIONS } from './index.js';
import { applyMigrations } from './migrate.js';
import { postgresBackend } from './create-postgres-storage.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const available = await postgresAvailable();

const databases: ThrowawayDatabase[] = [];
async function freshDatabase(): Promise<ThrowawayDatabase> {
  const database = await createThrowawayDatabase();
  databases.push(database);
  return database;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

describe('MIGRATIONS', () => {
  it('are numbered 1, 2, 3, ... with snake_case names', () => {
    expect(MIGRATIONS.map((migration) => migration.version)).toEqual(MIGRATIONS.map((_, n) => n + 1));
    for (const migration of MIGRATIONS) expect(migration.name).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});

describe.skipIf(!available)('migrate on PostgreSQL', () => {
  it('applies each migration once, records it, and does nothing the second time', async () => {
    const { url } = await freshDatabase();
    const latest = MIGRATIONS.length;
    expect(await migrate({ connectionString: url })).toEqual({
      applied: MIGRATIONS.map(({ version, name }) => ({ version, name })),
      version: latest,
    });
    expect(await migrate({ connectionString: url })).toEqual({ applied: [], version: latest });
    const recorded = await query<{ version: number; name: string; applied_at: Date }>(
      url,
      'SELECT version, name, applied_at FROM agent_platform.schema_migrations ORDER BY version',
    );
    expect(recorded.map(({ version, name }) => ({ version, name }))).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    for (const row of recorded) expect(row.applied_at).toBeInstanceOf(Date);
  });

  it('lets processes that start at once all succeed, with the migrations applied exactly once', async () => {
    const { url } = await freshDatabase();
    // Separate pools, as separate processes would have: two migrate() calls and two servers.
    const [a, b, server1, server2] = await Promise.all([
      migrate({ connectionString: url }),
      migrate({ connectionString: url }),
      createPostgresStorage({ connectionString: url }),
      createPostgresStorage({ connectionString: url }),
    ]);
    try {
      expect(a.version).toBe(MIGRATIONS.length);
      expect(b.version).toBe(MIGRATIONS.length);
      expect(a.applied.length + b.applied.length).toBeLessThanOrEqual(MIGRATIONS.length);
      await Promise.all([server1.ping(), server2.ping()]);
      const recorded = await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM agent_platform.schema_migrations');
      expect(recorded[0]?.n).toBe(MIGRATIONS.length);
    } finally {
      await Promise.all([server1.close(), server2.close()]);
    }
  });

  it('leaves the database alone with migrate: false', async () => {
    const { url } = await freshDatabase();
    const storage = await createPostgresStorage({ connectionString: url, migrate: false });
    await storage.ping();
    await storage.close();
    const schemas = await query(url, "SELECT 1 FROM pg_namespace WHERE nspname = 'agent_platform'");
    expect(schemas).toEqual([]);
  });

  it('refuses a database migrated by code whose migration of the same version has another name', async () => {
    const { url } = await freshDatabase();
    const backend = postgresBackend({ connectionString: url });
    try {
      await applyMigrations(backend, [{ version: 1, name: 'something_else', sql: 'CREATE TABLE agent_platform.x (id int)' }]);
      await expect(applyMigrations(backend)).rejects.toThrow(/recorded as "something_else"/);
      await expect(applyMigrations(backend, [{ version: 2, name: 'gap', sql: '' }])).rejects.toThrow(/numbered 1, 2, 3/);
    } finally {
      await backend.close();
    }
  });
  it('reads a delivery stored before its payload had a column of its own as one stored after', async () => {
    const { url } = await freshDatabase();
    const backend = postgresBackend({ connectionString: url });
    const old = makeDeliveryRecord({ payload_json: '{"zen":"Keep it logically awesome."}' });
    try {
      await applyMigrations(backend, MIGRATIONS.slice(0, 3));
      await backend.sql.query(`INSERT INTO agent_platform.deliveries (id, org_id, source, status, received_at, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`, [
        old.id,
        old.org_id,
        old.source,
        old.status,
        old.received_at,
        JSON.stringify(old),
      ]);
    } finally {
      await backend.close();
    }
    const storage = await createPostgresStorage({ connectionString: url });
    try {
      const fresh = makeDeliveryRecord({ org_id: old.org_id, payload_json: '{"zen":"Design for failure."}' });
      await storage.deliveries.insert(fresh);
      expect(await storage.deliveries.get(old.org_id, old.id)).toEqual(old);
      expect(await storage.deliveries.get(old.org_id, fresh.id)).toEqual(fresh);
      expect((await storage.deliveries.list(old.org_id, { limit: 5, offset: 0 })).items).toEqual(expect.arrayContaining([old, fresh]));
      const [row] = await query<{ payload: string | null; in_data: string | null }>(
        url,
        `SELECT payload, data->>'payload_json' AS in_data FROM agent_platform.deliveries WHERE id = '${fresh.id}'`,
      );
      expect(row).toEqual({ payload: fresh.payload_json, in_data: null });
    } finally {
      await storage.close();
    }
  });

  it('reads a conversation stored before it had a version as version 0, and patches it on from there', async () => {
    const { url } = await freshDatabase();
    const backend = postgresBackend({ connectionString: url });
    const { version: _version, ...old } = makeConversationRecord();
    try {
      await applyMigrations(backend, MIGRATIONS.slice(0, 5));
      await backend.sql.query('INSERT INTO agent_platform.conversations (id, user_id, created_at, data) VALUES ($1, $2, $3, $4::jsonb)', [
        old.id,
        old.created_by_user_id,
        old.created_at,
        JSON.stringify(old),
      ]);
    } finally {
      await backend.close();
    }
    const storage = await createPostgresStorage({ connectionString: url });
    try {
      expect(await storage.conversations.get(old.id)).toEqual({ ...old, version: 0 });
      expect(await storage.conversations.patch(old.id, { title: 'renamed' }, { version: 0 })).toEqual({ ...old, title: 'renamed', version: 1 });
      expect((await storage.conversations.listByUser(old.created_by_user_id, { limit: 5 })).items).toEqual([{ ...old, title: 'renamed', version: 1 }]);
    } finally {
      await storage.close();
    }
  });

  it('moves the reports runs held to their own records, and the runs keep nothing of them', async () => {
    const { url } = await freshDatabase();
    const backend = postgresBackend({ connectionString: url });
    const due = makeRunReport({ comment_due: true });
    const owing = makeRunRecord({ status: 'FAILED' });
    const running = makeRunRecord({ status: 'RUNNING' });
    const paid = makeRunRecord({ status: 'COMPLETED' });
    const legacy = makeRunRecord({ status: 'COMPLETED' });
    const nulled = makeRunRecord({ status: 'COMPLETED' });
    const unreported = makeRunRecord({ status: 'COMPLETED' });
    const stored: Array<[RunRecord, RunReport | null | undefined]> = [
      [owing, due],
      [running, due],
      [paid, makeRunReport({ comment_due: false, comment_id: 7 })],
      [legacy, makeRunReport()],
      [nulled, null],
      [unreported, undefined],
    ];
    try {
      await applyMigrations(backend, MIGRATIONS.slice(0, 6));
      for (const [run, report] of stored) {
        await backend.sql.query(
          'INSERT INTO agent_platform.runs (id, org_id, automation_id, status, created_at, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
          [run.id, run.org_id, run.automation_id, run.status, run.created_at, JSON.stringify(report === undefined ? run : { ...run, report })],
        );
      }
    } finally {
      await backend.close();
    }
    const storage = await createPostgresStorage({ connectionString: url });
    try {
      for (const [run, report] of stored) {
        expect(await storage.runs.get(run.org_id, run.id)).toEqual(run);
        expect(await storage.runReports.get(run.org_id, run.id)).toEqual(report ?? null);
      }
      expect(await storage.runReports.listDue(10)).toEqual([{ run: owing, report: due }]);
      expect(await query(url, "SELECT id FROM agent_platform.runs WHERE data ? 'report'")).toEqual([]);
      expect(await query(url, "SELECT indexname FROM pg_indexes WHERE indexname = 'runs_report_due'")).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it('fills the times of runs stored before they had columns, so the overview times them', async () => {
    const { url } = await freshDatabase();
    const backend = postgresBackend({ connectionString: url });
    const orgId = 'org-times';
    const timed = makeRunRecord({
      org_id: orgId,
      status: 'COMPLETED',
      created_at: '2025-03-01T10:00:00.000Z',
      started_at: '2025-03-01T10:01:00.000Z',
      completed_at: '2025-03-01T10:03:00.000Z',
    });
    const unstarted = makeRunRecord({ org_id: orgId, status: 'FAILED', created_at: '2025-03-01T10:00:00.000Z', completed_at: '2025-03-01T10:00:30.000Z' });
    const queued = makeRunRecord({ org_id: orgId, status: 'PENDING', created_at: '2025-03-01T10:00:00.000Z' });
    // Not an instant (no record is written so; a hand-edited row might be): left untimed, not failing the migration.
    const garbled = makeRunRecord({ org_id: orgId, status: 'FAILED', created_at: '2025-03-01T10:00:00.000Z', completed_at: 'yesterday' });
    try {
      await applyMigrations(backend, MIGRATIONS.slice(0, 12));
      for (const run of [timed, unstarted, queued, garbled]) {
        await backend.sql.query(
          'INSERT INTO agent_platform.runs (id, org_id, automation_id, status, created_at, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
          [run.id, run.org_id, run.automation_id, run.status, run.created_at, JSON.stringify(run)],
        );
      }
    } finally {
      await backend.close();
    }
    const storage = await createPostgresStorage({ connectionString: url });
    try {
      const rows = await query(url, 'SELECT id, started_at, completed_at FROM agent_platform.runs ORDER BY id');
      const times = Object.fromEntries(
        rows.map((row) => [row.id, [row.started_at, row.completed_at].map((at) => (at instanceof Date ? at.toISOString() : at))]),
      );
      expect(times).toEqual({
        [timed.id]: ['2025-03-01T10:01:00.000Z', '2025-03-01T10:03:00.000Z'],
        [unstarted.id]: [null, '2025-03-01T10:00:30.000Z'],
        [queued.id]: [null, null],
        [garbled.id]: [null, null],
      });
      const overview = await storage.runs.overview(orgId, { from: '2025-03-01T00:00:00.000Z', to: '2025-03-02T00:00:00.000Z', bucket: 'day' });
      expect(overview).toMatchObject({ totals: { COMPLETED: 1, FAILED: 2, PENDING: 1 }, p50DurationMs: 30_000, p95DurationMs: 120_000 });
    } finally {
      await storage.close();
    }
  });
});
