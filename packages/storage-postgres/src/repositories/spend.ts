/**
 * Spend control: ledger rows in `spend`, each add one atomic upsert-increment; budgets in
 * `budgets`, each put one upsert on the budget's slot (see the `spend` migration).
 * @module
 */
import type { BudgetRecord, BudgetsRepository, SpendQuery, SpendRepository, SpendRow } from '@agent-platform/core';
import { fromText, toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { recordOf, recordsOf, type DataRow } from './rows.js';

const NO_AUTOMATION = '';

interface SpendDbRow {
  org_id: string;
  day: string;
  user_id: string;
  automation_id: string;
  model: string;
  cost_usd: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  llm_calls: number | string;
}

/** The WHERE clause and parameters of the rows a query covers (`from`/`to` bound as dates). */
function where(query: SpendQuery): { text: string; params: unknown[] } {
  const params: unknown[] = [toText(query.orgId), query.from, query.to];
  const conditions = ['org_id = $1', 'day BETWEEN $2::date AND $3::date'];
  if (query.userId !== undefined) {
    params.push(toText(query.userId));
    conditions.push(`user_id = $${params.length}`);
  }
  if (query.automationId !== undefined) {
    params.push(toText(query.automationId));
    conditions.push(`automation_id = $${params.length}`);
  }
  return { text: conditions.join(' AND '), params };
}

const toRow = (row: SpendDbRow): SpendRow => ({
  org_id: fromText(row.org_id),
  user_id: fromText(row.user_id),
  automation_id: row.automation_id === NO_AUTOMATION ? null : fromText(row.automation_id),
  model: fromText(row.model),
  day: row.day,
  cost_usd: Number(row.cost_usd),
  prompt_tokens: Number(row.prompt_tokens),
  completion_tokens: Number(row.completion_tokens),
  llm_calls: Number(row.llm_calls),
});

export function spendRepository(sql: Sql): SpendRepository {
  return {
    async add(increment) {
      // One statement, so the ledger row and the totals move together: the ledger's upsert in a
      // data-modifying CTE (run whether or not it is read), then the day's and month's totals of
      // the org, the user and the automation (none for an API conversation).
      await sql.query(
        `WITH ledger AS (
           INSERT INTO agent_platform.spend (org_id, day, user_id, automation_id, model, cost_usd, prompt_tokens, completion_tokens, llm_calls)
           VALUES ($1, $2::date, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (org_id, day, user_id, automation_id, model) DO UPDATE SET
             cost_usd = spend.cost_usd + EXCLUDED.cost_usd,
             prompt_tokens = spend.prompt_tokens + EXCLUDED.prompt_tokens,
             completion_tokens = spend.completion_tokens + EXCLUDED.completion_tokens,
             llm_calls = spend.llm_calls + EXCLUDED.llm_calls
           RETURNING 1
         )
         INSERT INTO agent_platform.spend_totals (org_id, scope, subject, period, start, cost_usd)
         SELECT $1, t.scope, t.subject, t.period, t.start, $6 FROM (VALUES
           ('org', '', 'day', $2::date), ('org', '', 'month', date_trunc('month', $2::date)::date),
           ('user', $3, 'day', $2::date), ('user', $3, 'month', date_trunc('month', $2::date)::date),
           ('automation', $4, 'day', $2::date), ('automation', $4, 'month', date_trunc('month', $2::date)::date)
         ) AS t(scope, subject, period, start)
         WHERE t.scope <> 'automation' OR $4 <> ''
         ON CONFLICT (org_id, scope, subject, period, start) DO UPDATE SET cost_usd = spend_totals.cost_usd + EXCLUDED.cost_usd`,
        [
          toText(increment.org_id),
          increment.day,
          toText(increment.user_id),
          increment.automation_id === null ? NO_AUTOMATION : toText(increment.automation_id),
          toText(increment.model),
          increment.cost_usd,
          increment.prompt_tokens,
          increment.completion_tokens,
          increment.llm_calls,
        ],
      );
    },
    async periodTotal(orgId, key) {
      const { rows } = await sql.query<{ cost_usd: number | string }>(
        'SELECT cost_usd FROM agent_platform.spend_totals WHERE org_id = $1 AND scope = $2 AND subject = $3 AND period = $4 AND start = $5::date',
        [toText(orgId), key.scope, key.subjectId === null ? '' : toText(key.subjectId), key.period, key.start],
      );
      return Number(rows[0]?.cost_usd ?? 0);
    },
    async total(query) {
      const { text, params } = where(query);
      const { rows } = await sql.query<{ total: number | string | null }>(`SELECT sum(cost_usd) AS total FROM agent_platform.spend WHERE ${text}`, params);
      return Number(rows[0]?.total ?? 0);
    },
    async list(query) {
      const { text, params } = where(query);
      const { rows } = await sql.query<SpendDbRow>(
        `SELECT org_id, to_char(day, 'YYYY-MM-DD') AS day, user_id, automation_id, model, cost_usd, prompt_tokens, completion_tokens, llm_calls
         FROM agent_platform.spend WHERE ${text}`,
        params,
      );
      return rows.map(toRow);
    },
  };
}

export function budgetsRepository(sql: Sql): BudgetsRepository {
  return {
    async list(orgId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.budgets WHERE org_id = $1 ORDER BY created_at, id', [
        toText(orgId),
      ]);
      return recordsOf<BudgetRecord>(rows);
    },
    async put(record) {
      // A taken slot keeps its budget (id, created_at) and takes the new limit and who set it.
      const { rows } = await sql.query<DataRow>(
        `INSERT INTO agent_platform.budgets (id, org_id, scope, period, subject, created_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
         ON CONFLICT (org_id, scope, period, subject) DO UPDATE SET data = budgets.data || jsonb_build_object(
           'limit_usd', EXCLUDED.data->'limit_usd', 'updated_by', EXCLUDED.data->'updated_by', 'updated_at', EXCLUDED.data->'updated_at')
         RETURNING data::text AS data`,
        [
          toText(record.id),
          toText(record.org_id),
          record.scope,
          record.period,
          record.subject_id === null ? '' : toText(record.subject_id),
          record.created_at,
          toJsonb(record),
        ],
      );
      return recordOf<BudgetRecord>(rows) ?? record;
    },
    async delete(orgId, id) {
      const { rows } = await sql.query('DELETE FROM agent_platform.budgets WHERE org_id = $1 AND id = $2 RETURNING 1', [toText(orgId), toText(id)]);
      return rows.length > 0;
    },
  };
}
