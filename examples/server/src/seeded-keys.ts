/**
 * The API keys `AGENT_PLATFORM_API_KEYS` seeds, kept in step with the variable. With embedded
 * PGlite a ledger beside the data (`seeded-api-keys.json`) remembers which stored keys the
 * variable seeded and which users it seeded them for, so that at the next start
 * - a key taken out of the variable (or moved to another user or org) is revoked, while the
 *   keys created through the API stay — when the variable is set: a start without it at all
 *   (`pnpm start` after a walkthrough that seeded a key) keeps the keys it seeded before, and says
 *   so; `AGENT_PLATFORM_API_KEYS=''` revokes them;
 * - an empty variable warns that no key can call the API only when no stored key can.
 * @module
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hashApiKey, isPlatformError, type AgentPlatform } from '@agent-platform/core';
import type { Logger } from 'pino';
import { ConfigError, type SeededKey } from './config.js';

/** The name seeded keys are stored under (`GET /api/keys` shows it). */
export const SEEDED_KEY_NAME = 'AGENT_PLATFORM_API_KEYS';

export interface SeedLedger {
  /** Ids of the stored keys the variable seeded at the last start. */
  keys: string[];
  /** Every user the variable ever seeded a key for: the only users who can hold stored keys. */
  users: string[];
}

export interface SyncSeededKeysOptions {
  /** Where the ledger is kept; `null` when there is no data directory (PostgreSQL, memory). */
  ledgerFile: string | null;
  /** Whether keys stored by earlier processes can exist (PGlite, PostgreSQL; not memory). */
  persistent: boolean;
  /** The variable is not set at all: the keys it seeded before stay (an empty value revokes them). */
  keepEarlierSeeds?: boolean;
  logger: Logger;
  /**
   * With no key configured and none stored (a first start): create one for {@link FIRST_START_PRINCIPAL}
   * and print it once, with the console's URL. `null`: only warn.
   */
  firstStart?: { consoleUrl: string } | null;
}

/** Who the key created at a first start acts for. */
export const FIRST_START_PRINCIPAL = { userId: 'admin', orgId: 'default' } as const;

export async function syncSeededKeys(platform: AgentPlatform, seeds: readonly SeededKey[], options: SyncSeededKeysOptions): Promise<void> {
  const { logger } = options;
  const stored = platform.storage.apiKeys;
  const ledger = options.ledgerFile ? readLedger(options.ledgerFile) : null;
  const wanted = new Map(seeds.map((seed) => [hashApiKey(seed.key), seed]));

  if (options.keepEarlierSeeds && seeds.length === 0 && ledger && ledger.keys.length > 0) {
    const kept: string[] = [];
    for (const id of ledger.keys) {
      const record = await stored.get(id);
      if (record) kept.push(id);
    }
    if (kept.length > 0) {
      logger.info(
        { keys: kept.length },
        "AGENT_PLATFORM_API_KEYS is not set: the API keys it seeded at an earlier start stay valid (set AGENT_PLATFORM_API_KEYS='' to revoke them)",
      );
      writeLedger(options.ledgerFile as string, { keys: kept, users: ledger.users });
      return;
    }
  }

  // First the revocations, so that a key moved to another user or org can be seeded again.
  for (const id of ledger?.keys ?? []) {
    const record = await stored.get(id);
    if (!record) continue;
    const seed = wanted.get(record.key_hash);
    if (seed && seed.userId === record.user_id && seed.orgId === record.org_id) continue;
    await stored.delete(id);
    logger.info(
      { userId: record.user_id, orgId: record.org_id, prefix: record.prefix },
      'revoked an API key seeded earlier: it is no longer in AGENT_PLATFORM_API_KEYS',
    );
  }

  const seededIds: string[] = [];
  for (const [index, seed] of seeds.entries()) {
    const before = await stored.getByHash(hashApiKey(seed.key));
    const view = await platform.apiKeys.seed({ ...seed, name: SEEDED_KEY_NAME }).catch((error: unknown) => {
      if (isPlatformError(error) && error.code === 'CONFLICT') {
        throw new ConfigError(`AGENT_PLATFORM_API_KEYS entry ${index + 1}: that key is already stored for another user or org`);
      }
      throw error;
    });
    // A key stored before that the variable did not seed (created through the API, say) is
    // not taken over: taking it out of the variable later must not revoke it. Keys seeded before
    // there was a ledger carry the seeded name.
    if (!before || ledger?.keys.includes(before.id) || before.name === SEEDED_KEY_NAME) seededIds.push(view.id);
    logger.info({ userId: seed.userId, orgId: seed.orgId }, 'seeded API key');
  }

  const users = [...new Set([...(ledger?.users ?? []), ...seeds.map((seed) => seed.userId)])];
  if (options.ledgerFile) writeLedger(options.ledgerFile, { keys: seededIds, users });
  if (seeds.length > 0) return;

  if (options.persistent && !ledger) {
    logger.info('AGENT_PLATFORM_API_KEYS is not set: only API keys already stored in the database can call the API');
    return;
  }
  let count = 0;
  for (const userId of users) count += (await stored.listByUser(userId)).length;
  if (count > 0) {
    logger.info({ keys: count }, 'AGENT_PLATFORM_API_KEYS is not set: the API keys stored earlier (created through the API) can call the API');
  } else if (options.firstStart) {
    const created = await platform.apiKeys.create(FIRST_START_PRINCIPAL, { name: 'first start' });
    const { userId, orgId } = FIRST_START_PRINCIPAL;
    // Its user joins the ledger's, so later starts count its key.
    if (options.ledgerFile) writeLedger(options.ledgerFile, { keys: seededIds, users: [...users, userId] });
    // Shown this once (only its hash is stored), in the message: the log's redaction hides `key` fields.
    logger.warn(
      { userId, orgId, console: options.firstStart.consoleUrl },
      `first start: created an API key for ${userId}@${orgId}, shown only now: ${created.key} — sign in at ${options.firstStart.consoleUrl} with it, or send it as "Authorization: Bearer <key>". Add keys with AGENT_PLATFORM_API_KEYS=user@org:<key> (16+ characters) or POST /api/keys`,
    );
  } else {
    logger.warn('AGENT_PLATFORM_API_KEYS is not set: no API key can call the API (set e.g. AGENT_PLATFORM_API_KEYS=alice@acme:<a key of 16+ characters>)');
  }
}

export function readLedger(file: string): SeedLedger {
  if (!existsSync(file)) return { keys: [], users: [] };
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<SeedLedger>;
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
  return { keys: strings(parsed.keys), users: strings(parsed.users) };
}

function writeLedger(file: string, ledger: SeedLedger): void {
  // Written whole then renamed: a crash leaves the old ledger or the new one, never half of one.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(ledger, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
