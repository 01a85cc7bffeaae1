/**
 * GitHub links: one per (kind, key, org), looked up by (kind, key) to find the orgs an event
 * concerns, and listed per org oldest first.
 * @module
 */
import type { GithubLinksRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { linkKey, pairKey } from '../database/keys.js';

export function githubLinksRepository(db: Database, access: Access): GithubLinksRepository {
  return {
    async put(record) {
      const row = cloneJson(record);
      await access.write(() => db.githubLinks.put(row));
    },
    async delete(kind, key, orgId) {
      return access.write(() => db.githubLinks.delete(linkKey(kind, key, orgId)));
    },
    async findOrgs(refs) {
      const links = readView(access, db.githubLinks);
      const orgs = new Set<string>();
      for (const ref of refs) {
        for (const link of links.group(db.githubLinksByRef, pairKey(ref.kind, ref.key))) orgs.add(link.org_id);
      }
      return [...orgs];
    },
    async listByOrg(orgId) {
      return readView(access, db.githubLinks).ordered(db.githubLinksByOrg, orgId).all().map(cloneJson);
    },
  };
}
