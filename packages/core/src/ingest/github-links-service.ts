import { validationError } from '../kernel/errors.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { GithubLink } from '../schemas/github-link.js';
import type { GithubDeliveryInfo } from './github-delivery.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';

export interface GithubLinkInput {
  orgId: string;
  /** A GitHub App installation id. */
  installationId?: number | string;
  /** An account (user or organization) login; compared case-insensitively. */
  account?: string;
}

/**
 * Which orgs GitHub deliveries reach: a host links installations or accounts to orgs (the
 * reference server reads `AGENT_PLATFORM_GITHUB_LINKS`). Used by the default resolver.
 */
export class GithubLinksService {
  constructor(private readonly context: ServiceContext) {}

  async link(input: GithubLinkInput): Promise<GithubLink> {
    const record: GithubLink = { ...refOf(input), org_id: input.orgId, created_at: nowIso(this.context) };
    await this.context.storage.githubLinks.put(record);
    await this.context.announce({ type: 'github-links.changed' });
    return record;
  }

  async unlink(input: GithubLinkInput): Promise<boolean> {
    const ref = refOf(input);
    const deleted = await this.context.storage.githubLinks.delete(ref.kind, ref.key, input.orgId);
    if (deleted) await this.context.announce({ type: 'github-links.changed' });
    return deleted;
  }

  list(orgId: string): Promise<GithubLink[]> {
    return this.context.storage.githubLinks.listByOrg(orgId);
  }
}

function refOf(input: GithubLinkInput): Pick<GithubLink, 'kind' | 'key'> {
  if (input.installationId !== undefined && input.account !== undefined)
    throw validationError(['installationId'], 'give an installation id or an account, not both');
  if (input.installationId !== undefined) {
    const key = String(input.installationId);
    if (!/^\d{1,20}$/.test(key)) throw validationError(['installationId'], 'must be a number');
    return { kind: 'installation', key };
  }
  const account = input.account?.trim().toLowerCase();
  if (!account || !/^[a-z0-9-]{1,100}$/.test(account)) throw validationError(['account'], 'must be a GitHub login');
  return { kind: 'account', key: account };
}

/** The default resolver: orgs linked to the delivery's installation or any of its accounts. */
export const storedLinksResolver =
  (storage: StorageAdapter) =>
  (delivery: Readonly<GithubDeliveryInfo>): Promise<string[]> =>
    storage.githubLinks.findOrgs([
      ...(delivery.installationId === null ? [] : [{ kind: 'installation' as const, key: String(delivery.installationId) }]),
      ...delivery.accounts.map((account) => ({ kind: 'account' as const, key: account })),
    ]);
