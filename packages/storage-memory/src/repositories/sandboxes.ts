/**
 * Sandboxes: looked up by id (any user's, for the executor), listed per user in cursor pages.
 * @module
 */
import { SANDBOX_STATUSES, type SandboxesRepository, type SandboxStatus } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import type { Database } from '../database/database.js';
import { replaceWhole, userOwnedRepository } from './user-owned.js';

export function sandboxesRepository(db: Database, access: Access): SandboxesRepository {
  return {
    ...userOwnedRepository(db.sandboxes, db.sandboxesByUser, access, 'A sandbox'),
    ...replaceWhole(db.sandboxes, access),
    async delete(id) {
      return access.write(() => db.sandboxes.delete(id));
    },
    async countByStatus() {
      const view = readView(access, db.sandboxes);
      const counts: Partial<Record<SandboxStatus, number>> = {};
      for (const status of SANDBOX_STATUSES) {
        const count = view.group(db.sandboxesByStatus, status).length;
        if (count > 0) counts[status] = count;
      }
      return counts;
    },
  };
}
