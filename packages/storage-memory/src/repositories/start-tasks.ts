/**
 * Conversation start tasks: looked up by id, listed per user in cursor pages.
 * @module
 */
import type { StartTasksRepository } from '@agent-platform/core';
import type { Access } from '../database/access.js';
import type { Database } from '../database/database.js';
import { replaceWhole, userOwnedRepository } from './user-owned.js';

export function startTasksRepository(db: Database, access: Access): StartTasksRepository {
  return { ...userOwnedRepository(db.startTasks, db.startTasksByUser, access, 'A start task'), ...replaceWhole(db.startTasks, access) };
}
