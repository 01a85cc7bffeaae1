/**
 * Sandboxes: looked up by id (any user's, for the executor), listed per user in cursor pages.
 * @module
 */
import type { SandboxesRepository } from '@agent-platform/core';
import type { Access } from '../database/access.js';
import type { Database } from '../database/database.js';
import { userOwnedRepository } from './user-owned.js';

export function sandboxesRepository(db: Database, access: Access): SandboxesRepository {
  return {
    ...userOwnedRepository(db.sandboxes, db.sandboxesByUser, access, 'A sandbox'),
    async delete(id) {
      return access.write(() => db.sandboxes.delete(id));
    },
  };
}
