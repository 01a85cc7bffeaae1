/**
 * GitHub links, keyed by (kind, key, org): `findOrgs` answers which orgs a GitHub delivery reaches.
 * @module
 */
import type { GithubLinkRecord, GithubLinksRepository } from '@agent-platform/core';
import { fromText, toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { recordsOf, type DataRow } from './rows.js';

export function githubLinksRepository(sql: Sql): GithubLinksRepository {
  return {
    async put(record) {
      await sql.query(
        `INSERT INTO agent_platform.github_links (kind, key, org_id, created_at, data) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT (kind, key, org_id) DO UPDATE SET created_at = EXCLUDED.created_at, data = EXCLUDED.data`,
        [toText(record.kind), toText(record.key), toText(record.org_id), record.created_at, toJsonb(record)],
      );
    },
    async delete(kind, key, orgId) {
      const { rowCount } = await sql.query('DELETE FROM agent_platform.github_links WHERE kind = $1 AND key = $2 AND org_id = $3', [
        toText(kind),
        toText(key),
        toText(orgId),
      ]);
      return rowCount > 0;
    },
    async findOrgs(refs) {
      if (refs.length === 0) return [];
      const { rows } = await sql.query<{ org_id: string }>(
        `SELECT DISTINCT l.org_id FROM agent_platform.github_links l
         JOIN unnest($1::text[], $2::text[]) AS r(kind, key) ON l.kind = r.kind AND l.key = r.key
         ORDER BY l.org_id`,
        [refs.map((ref) => toText(ref.kind)), refs.map((ref) => toText(ref.key))],
      );
      return rows.map((row) => fromText(row.org_id));
    },
    async listByOrg(orgId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.github_links WHERE org_id = $1 ORDER BY created_at, kind, key', [
        toText(orgId),
      ]);
      return recordsOf<GithubLinkRecord>(rows);
    },
  };
}
