/**
 * Conversations and their events. An append takes its seqs from the conversation's `next_seq`
 * with UPDATE ... RETURNING and inserts the events in the same statement: the row lock queues
 * concurrent appends, so none share or skip a seq, and an unknown conversation updates no row.
 *
 * A patch is one UPDATE too: it merges the given members into `data` (a top-level `||`, so the
 * members it does not name keep what the latest write left) and bumps the `version` column,
 * comparing it first when guarded. A patch that waited for another's row lock re-reads the row it
 * waited for (READ COMMITTED), so neither undoes the other, and a guard naming the version both
 * read lets only the first through. The version lives in its column only, and reads add it.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import { checkPageLimit, conversationPatchOf, decodeSeqPage, encodeSeqPage } from '@agent-platform/core/adapter-kit';
import type { AppConversationRecord, ConversationEvent, ConversationsRepository } from '@agent-platform/core';
import { fromJsonb, toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, recordOf, recordsOf, type DataRow } from './rows.js';
import { userPage } from './user-pages.js';

/** The record as read: `data` with the version from its column. */
export const CONVERSATION_RECORD = `(data || jsonb_build_object('version', version))::text`;

/** `$4` the guard's version, or NULL for none; `$3` the new `created_at`, or NULL to keep it. */
const PATCH = `
UPDATE agent_platform.conversations
SET data = data || $2::jsonb, created_at = coalesce($3::timestamptz, created_at), version = version + 1
WHERE id = $1 AND ($4::int IS NULL OR version = $4::int)
RETURNING ${CONVERSATION_RECORD} AS data`;

const APPEND = `
WITH bumped AS (
  UPDATE agent_platform.conversations SET next_seq = next_seq + $2::int
  WHERE id = $1 RETURNING next_seq - $2::int AS first
), appended AS (
  INSERT INTO agent_platform.conversation_events (conversation_id, seq, data)
  SELECT $1, bumped.first + e.n::int - 1,
         e.value || jsonb_build_object('conversation_id', $1::text, 'seq', bumped.first + e.n::int - 1)
  FROM bumped, jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(value, n)
)
SELECT first FROM bumped`;

// One statement, so the conversation, its events (ON DELETE CASCADE) and its start tasks go
// together outside a transaction too. The start tasks are looked up among the owner's only.
const DELETE = `
WITH gone AS (
  DELETE FROM agent_platform.conversations WHERE id = $1 RETURNING user_id
), tasks AS (
  DELETE FROM agent_platform.start_tasks AS task USING gone
  WHERE task.user_id = gone.user_id AND task.data->>'app_conversation_id' = $1
)
SELECT count(*)::int AS deleted FROM gone`;

export function conversationsRepository(sql: Sql): ConversationsRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.conversations (id, user_id, created_at, version, data) VALUES ($1, $2, $3, $4, $5::jsonb - 'version')
         ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id), toText(record.created_by_user_id), record.created_at, record.version, toJsonb(record)],
        `A conversation with id ${record.id} already exists`,
      );
    },
    async get(id) {
      const { rows } = await sql.query<DataRow>(`SELECT ${CONVERSATION_RECORD} AS data FROM agent_platform.conversations WHERE id = $1`, [toText(id)]);
      return recordOf<AppConversationRecord>(rows);
    },
    async listByUser(userId, options) {
      return userPage<AppConversationRecord>(sql, 'agent_platform.conversations', userId, options, CONVERSATION_RECORD);
    },
    async patch(id, patch, guard = {}) {
      const written = conversationPatchOf(patch);
      const { rows } = await sql.query<DataRow>(PATCH, [toText(id), toJsonb(written), written.created_at ?? null, guard.version ?? null]);
      return recordOf<AppConversationRecord>(rows);
    },
    async appendEvents(conversationId, events) {
      // Serialized now: what is stored and what is returned are both this text, read back.
      const text = toJsonb(events);
      const { rows } = await sql.query<{ first: number }>(APPEND, [toText(conversationId), events.length, text]);
      const first = rows[0]?.first;
      if (first === undefined) {
        throw new StorageConflictError(`Cannot append events to unknown conversation ${conversationId}`);
      }
      return fromJsonb<Omit<ConversationEvent, 'seq'>[]>(text).map((event, n) => ({
        ...event,
        conversation_id: conversationId,
        seq: Number(first) + n,
      }));
    },
    async delete(id) {
      const { rows } = await sql.query<{ deleted: number }>(DELETE, [toText(id)]);
      return Number(rows[0]?.deleted ?? 0) > 0;
    },
    async listEvents(conversationId, options) {
      const limit = checkPageLimit(options.limit);
      const from = options.pageId === undefined ? 0 : decodeSeqPage(options.pageId);
      const { rows } = await sql.query<DataRow & { seq: number }>(
        `SELECT seq, data::text AS data FROM agent_platform.conversation_events
         WHERE conversation_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
        [toText(conversationId), from, limit + 1],
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: recordsOf<ConversationEvent>(page),
        nextPageId: rows.length > limit && last ? encodeSeqPage(Number(last.seq) + 1) : null,
      };
    },
  };
}
