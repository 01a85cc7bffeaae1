/**
 * Conversations, listed per user in cursor pages and changed by a guarded patch, and their
 * events: an append-only log per conversation whose index is `seq`, paged by `seq`.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import { applyConversationPatch } from '@agent-platform/core/adapter-kit';
import type { AppConversationRecord, ConversationEvent, ConversationGuard, ConversationPatch, ConversationsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { eventsPage } from '../database/pages.js';
import { userOwnedRepository } from './user-owned.js';

/**
 * Appends to an existing conversation, numbering the events on from the stored count. Runs under
 * the write lock, so concurrent appends never share or skip a `seq`.
 */
function appendEvents(db: Database, conversationId: string, events: readonly Omit<ConversationEvent, 'seq'>[]): ConversationEvent[] {
  if (db.conversations.live.get(conversationId) === undefined) {
    throw new StorageConflictError(`Cannot append events to unknown conversation ${conversationId}`);
  }
  const start = db.events.live.size(conversationId);
  const rows = events.map((event, n) => ({ ...event, conversation_id: conversationId, seq: start + n }));
  db.events.append(conversationId, rows);
  return rows.map(cloneJson);
}

/**
 * Deletes the conversation, its events and its owner's start tasks that name it, under the
 * write lock (one step for readers and concurrent appends).
 */
function deleteConversation(db: Database, id: string): boolean {
  const conversation = db.conversations.live.get(id);
  if (conversation === undefined) return false;
  const tasks = db.startTasks.live
    .ordered(db.startTasksByUser, conversation.created_by_user_id)
    .all()
    .filter((task) => task.app_conversation_id === id);
  for (const task of tasks) db.startTasks.delete(task.id);
  db.events.remove(id);
  return db.conversations.delete(id);
}

/**
 * Writes the patch to the live conversation when the guard allows it, and returns the row now
 * stored (the caller copies it). Run under the write lock, so the version compared is the one
 * written over: of concurrent guarded patches from one version, exactly one lands.
 */
function patchConversation(db: Database, id: string, patch: ConversationPatch, guard: ConversationGuard): AppConversationRecord | null {
  // A new object: the undo log may hold the stored row as a pre-image.
  const next = applyConversationPatch(db.conversations.live.get(id), patch, guard);
  if (next !== null) db.conversations.put(next);
  return next;
}

export function conversationsRepository(db: Database, access: Access): ConversationsRepository {
  return {
    ...userOwnedRepository(db.conversations, db.conversationsByUser, access, 'A conversation'),
    async patch(id, patch, guard = {}) {
      // Copied before queueing, so changes the caller makes while the write waits do not land.
      const changes = cloneJson(patch);
      const rule = cloneJson(guard);
      return access.write(() => {
        const next = patchConversation(db, id, changes, rule);
        return next === null ? null : cloneJson(next);
      });
    },
    async appendEvents(conversationId, events) {
      const rows = events.map(cloneJson);
      return access.write(() => appendEvents(db, conversationId, rows));
    },
    async listEvents(conversationId, options) {
      return eventsPage(readView(access, db.events), conversationId, options);
    },
    async delete(id) {
      return access.write(() => deleteConversation(db, id));
    },
  };
}
