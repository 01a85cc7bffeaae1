/**
 * Custom secrets one by one (OpenHands' `/api/v1/secrets`): the same secrets as
 * `secrets_store.custom_secrets` of the settings — stored sealed in the user's settings record,
 * given to the agent's commands as environment variables, and never returned. Each change is
 * one read-modify-write of that record inside a storage transaction, so concurrent changes (two
 * creates of different names, a create beside a settings store) all land. Each change is in
 * the org's audit log (`secret.created`, `secret.updated`, `secret.deleted`) by the secret's
 * name, never its value.
 * @module
 */
import { PlatformError, notFound, validationError } from '../kernel/errors.js';
import type { StorageRepositories } from '../ports/storage.js';
import type { Principal } from '../schemas/principal.js';
import {
  customSecretCreateInputSchema,
  customSecretSearchQuerySchema,
  customSecretUpdateInputSchema,
  type CustomSecret,
  type CustomSecretPage,
} from '../schemas/custom-secrets.js';
import { customSecretNameSchema, type SettingsRecord } from '../schemas/settings.js';
import { parseInput } from '../kernel/validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { emptySettingsRecord } from '../settings/settings-service.js';
import { keyActor } from '../audit/audit-log.js';

type StoredSecrets = NonNullable<SettingsRecord['custom_secrets']>;

/** A page id: the last name of the page before, base64url, so a page starts strictly after it. */
const encodePageId = (name: string): string => Buffer.from(name, 'utf8').toString('base64url');

function decodePageId(pageId: string): string {
  const name = /^[A-Za-z0-9_-]+$/.test(pageId) ? Buffer.from(pageId, 'base64url').toString('utf8') : '';
  if (!customSecretNameSchema.safeParse(name).success || encodePageId(name) !== pageId) throw validationError(['query', 'page_id'], 'invalid page id');
  return name;
}

/** Code-unit order, as the names are listed. */
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class SecretsService {
  constructor(private readonly context: ServiceContext) {}

  /**
   * The caller's custom secrets by name (code-unit order), names and descriptions only:
   * `limit` (1–100, default 100) per page, `page_id` from the page before, `name__contains` to
   * keep names containing a text (case-insensitive).
   */
  async search(principal: Principal, query: unknown = {}): Promise<CustomSecretPage> {
    const { limit, page_id: pageId, name__contains: contains } = parseInput(customSecretSearchQuerySchema, query, 'query');
    const after = pageId === undefined ? null : decodePageId(pageId);
    const record = await this.context.storage.settings.get(principal.userId);
    const needle = contains?.toLowerCase();
    const names = Object.keys(record?.custom_secrets ?? {})
      .filter((name) => (after === null || name > after) && (needle === undefined || name.toLowerCase().includes(needle)))
      .sort(byName);
    const page = names.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((name) => ({ name, description: record?.custom_secrets?.[name]?.description ?? null })),
      next_page_id: names.length > limit && last !== undefined ? encodePageId(last) : null,
    };
  }

  /** Stores a new custom secret; 409 when the caller has one of that name. */
  async create(principal: Principal, input: unknown): Promise<CustomSecret> {
    const { name, value, description } = parseInput(customSecretCreateInputSchema, input);
    const secret = { secret: this.context.secrets.seal(value), description: description ?? null };
    await this.change(principal, (secrets) => {
      if (Object.hasOwn(secrets, name)) throw new PlatformError('CONFLICT', `A secret named ${name} already exists`);
      return { ...secrets, [name]: secret };
    });
    await this.recorded(principal, 'secret.created', name, { description: secret.description !== null });
    return { name, description: secret.description };
  }

  /**
   * Renames the secret and/or sets its description (`null` or omitted clears it); its value is
   * kept. 404 for an unknown name, 409 when the new name is another secret's.
   */
  async update(principal: Principal, name: string, input: unknown): Promise<CustomSecret> {
    const next = parseInput(customSecretUpdateInputSchema, input);
    const description = next.description ?? null;
    let fields: string[] = [];
    await this.change(principal, (secrets) => {
      const current = Object.hasOwn(secrets, name) ? secrets[name] : undefined;
      if (!current) throw notFound('Secret');
      if (next.name !== name && Object.hasOwn(secrets, next.name)) throw new PlatformError('CONFLICT', `A secret named ${next.name} already exists`);
      fields = [...(next.name !== name ? ['name'] : []), ...(current.description !== description ? ['description'] : [])];
      const { [name]: _renamed, ...rest } = secrets;
      return { ...rest, [next.name]: { secret: current.secret, description } };
    });
    await this.recorded(principal, 'secret.updated', name, { fields, ...(next.name !== name ? { renamed_to: next.name } : {}) });
    return { name: next.name, description };
  }

  /** Deletes the secret; 404 for an unknown name. */
  async delete(principal: Principal, name: string): Promise<void> {
    await this.change(principal, (secrets) => {
      if (!Object.hasOwn(secrets, name)) throw notFound('Secret');
      const { [name]: _deleted, ...rest } = secrets;
      return rest;
    });
    await this.recorded(principal, 'secret.deleted', name, {});
  }

  /** The change's audit entry: the secret by its name (never its value), after the change. */
  private recorded(principal: Principal, action: string, name: string, details: Record<string, unknown>): Promise<void> {
    return this.context.audit.record(principal.orgId, keyActor(principal), { action, target: { type: 'secret', id: name }, details });
  }

  /** One read-modify-write of the user's custom secrets, in a transaction (run again on a serialization failure: `edit` is pure). */
  private async change(principal: Principal, edit: (secrets: Readonly<StoredSecrets>) => StoredSecrets): Promise<void> {
    await this.context.storage.transaction(async (tx: StorageRepositories) => {
      const now = nowIso(this.context);
      const stored = (await tx.settings.get(principal.userId)) ?? emptySettingsRecord(principal.userId, now);
      const customSecrets = edit(stored.custom_secrets ?? {});
      await tx.settings.put({ ...stored, custom_secrets: customSecrets, updated_at: now });
    });
  }
}
