/**
 * The reference server's storage, its data directory, and the key that seals secrets in it.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createAesGcmSecretBox, generateSecretKey, PlatformError, type SecretBox, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPGliteStorage, createPostgresStorage } from '@agent-platform/storage-postgres';
import type { Logger } from 'pino';
import { ConfigError, type ServerConfig } from './config.js';

/** Files the server keeps in its data directory, beside `pglite/`. */
export const DATA_FILES = {
  /** The generated development key (without `AGENT_PLATFORM_SECRET_KEY`), mode 600. */
  secretKey: 'secret-key',
  /** A value sealed with the key the directory was made with: a wrong key is caught at start. */
  secretKeyCheck: 'secret-key-check',
  /** The process using the directory: PGlite is one process only. */
  lock: 'server.pid',
  /** Which stored API keys came from `AGENT_PLATFORM_API_KEYS` (see `seeded-keys.ts`). */
  seededKeys: 'seeded-api-keys.json',
} as const;

export async function openStorage(config: ServerConfig, logger: Logger): Promise<StorageAdapter> {
  const { storage } = config;
  if (storage.kind === 'memory') {
    const { maxDeliveries, maxDeliveriesPerOrg } = storage;
    logger.warn(`AGENT_PLATFORM_STORAGE=memory: nothing is kept after the server stops; meanwhile it keeps ${kept(maxDeliveries, maxDeliveriesPerOrg)}`);
    return createMemoryStorage({ maxDeliveries, maxDeliveriesPerOrg });
  }
  if (storage.kind === 'pglite') {
    const dataDir = prepareDataDir(storage.dataDir);
    logger.info({ dataDir }, 'storage: embedded PGlite (set DATABASE_URL for PostgreSQL)');
    return createPGliteStorage({ dataDir: path.join(dataDir, 'pglite') });
  }
  // The URL may hold a password: log only where it points.
  const url = new URL(storage.url);
  logger.info({ host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1) }, 'storage: PostgreSQL');
  return createPostgresStorage({ connectionString: storage.url });
}

/** Which deliveries the memory store keeps, as the log says it. */
function kept(maxDeliveries: number, maxDeliveriesPerOrg: number): string {
  const count = (max: number) => max.toLocaleString('en-US');
  if (maxDeliveries === Infinity) return maxDeliveriesPerOrg === Infinity ? 'every delivery' : `the newest ${count(maxDeliveriesPerOrg)} deliveries per org`;
  return `the newest ${count(maxDeliveries)} deliveries${maxDeliveriesPerOrg === Infinity ? '' : ` (${count(maxDeliveriesPerOrg)} per org)`}`;
}

const locked = new Set<string>();

/**
 * Creates the data directory and claims it for this process. Embedded PGlite has no lock of its
 * own, and both example servers (and a worker) default to the same directory: a second process
 * on it would corrupt the data, so it is refused with a message instead. A lock whose process is
 * gone (killed, crashed) is taken over.
 */
export function prepareDataDir(dataDir: string): string {
  const dir = path.resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, DATA_FILES.lock);
  if (locked.has(file)) return dir;
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new ConfigError(
        `the data directory ${dir} is in use by process ${holder} (another server or worker on embedded PGlite, which serves one process at a time): ` +
          `stop it, or give this one its own AGENT_PLATFORM_DATA_DIR (if no such process is an agent-platform server, delete ${file})`,
      );
    }
    writeFileSync(file, `${process.pid}\n`);
  }
  if (locked.size === 0)
    process.once('exit', () => {
      for (const lock of locked) rmSync(lock, { force: true });
    });
  locked.add(file);
  return dir;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The key sealing secrets at rest. Without `AGENT_PLATFORM_SECRET_KEY`: with PGlite, a key is
 * generated once and kept beside the data (mode 600), so stored secrets survive restarts; in
 * memory, a key for this run only. With PGlite the key is checked against the data directory (a
 * value sealed when the directory was made) before anything is opened, so a key that cannot open
 * the stored secrets stops the server at once with a {@link ConfigError} that says which.
 */
export function resolveSecretKey(config: ServerConfig, logger: Logger): string {
  if (config.storage.kind === 'pglite') {
    const key = config.secretKey ?? developmentKey(config.storage.dataDir, logger);
    checkSecretKey(config.storage.dataDir, createAesGcmSecretBox({ keys: { k1: key } }), config.secretKey !== null);
    return key;
  }
  if (config.secretKey) return config.secretKey;
  logger.warn('AGENT_PLATFORM_SECRET_KEY is not set: using a generated development key; secrets stored now cannot be read after a restart');
  return generateSecretKey();
}

function developmentKey(dataDir: string, logger: Logger): string {
  const dir = prepareDataDir(dataDir);
  const file = path.join(dir, DATA_FILES.secretKey);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (existsSync(path.join(dir, DATA_FILES.secretKeyCheck))) {
    // Secrets were stored here with a key that is not kept here: a new one would not open them.
    throw new ConfigError(
      `AGENT_PLATFORM_SECRET_KEY is not set, and the secrets stored in ${dir} were sealed with a key not kept there: set AGENT_PLATFORM_SECRET_KEY to the key this directory was made with, or point AGENT_PLATFORM_DATA_DIR at another directory (a new one starts empty)`,
    );
  }
  const key = generateSecretKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  logger.warn({ file }, 'AGENT_PLATFORM_SECRET_KEY is not set: generated a development key and kept it beside the data; set your own key in production');
  return key;
}

const CHECK_TEXT = 'agent-platform: the secrets in this directory open with this key';

/**
 * The box sealing secrets with `key` (from {@link resolveSecretKey}). A stored secret it cannot
 * open is explained (see {@link explainKeyMismatch}): with PostgreSQL there is nothing as cheap
 * as the data directory's check to catch a wrong key at start.
 */
export function openSecretBox(key: string, logger: Logger): SecretBox {
  return explainKeyMismatch(createAesGcmSecretBox({ keys: { k1: key } }), logger);
}

/** Throws a {@link ConfigError} when `box` does not open what the directory was sealed with. */
export function checkSecretKey(dataDir: string, box: SecretBox, fromVariable: boolean): void {
  const dir = prepareDataDir(dataDir);
  const file = path.join(dir, DATA_FILES.secretKeyCheck);
  if (!existsSync(file)) {
    writeFileSync(file, `${box.seal(CHECK_TEXT)}\n`, { mode: 0o600 });
    return;
  }
  const sealed = readFileSync(file, 'utf8').trim();
  if (opens(box, sealed)) return;
  const keyFile = path.join(dir, DATA_FILES.secretKey);
  const generated = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null;
  const otherDir = 'or point AGENT_PLATFORM_DATA_DIR at another directory (a new one starts empty)';
  if (!fromVariable) {
    throw new ConfigError(
      `the development key in ${keyFile} does not open the secrets stored in ${dir} (was the file replaced?): set AGENT_PLATFORM_SECRET_KEY to the key this directory was made with, ${otherDir}`,
    );
  }
  if (generated && opens(createAesGcmSecretBox({ keys: { k1: generated } }), sealed)) {
    throw new ConfigError(
      `AGENT_PLATFORM_SECRET_KEY does not open the secrets stored in ${dir}: they were sealed with the development key generated in ${keyFile} when AGENT_PLATFORM_SECRET_KEY was not set. ` +
        `Unset AGENT_PLATFORM_SECRET_KEY (or set it to that key), ${otherDir}`,
    );
  }
  throw new ConfigError(
    `AGENT_PLATFORM_SECRET_KEY does not open the secrets stored in ${dir}: they were sealed with another key. Set it to the key this directory was made with, ${otherDir}`,
  );
}

function opens(box: SecretBox, sealed: string): boolean {
  try {
    return box.open(sealed) === CHECK_TEXT;
  } catch {
    return false;
  }
}

const MISMATCH =
  'a stored secret does not open with AGENT_PLATFORM_SECRET_KEY: it was sealed with another key. Set AGENT_PLATFORM_SECRET_KEY to the key the database was made with (the same in every process)';

/**
 * A failure to open a stored secret says which setting is wrong, once in the log and on every
 * request it fails (503: nothing the caller did, and it works again once the key is right).
 */
export function explainKeyMismatch(box: SecretBox, logger: Logger): SecretBox {
  let logged = false;
  return {
    seal: (plaintext) => box.seal(plaintext),
    open(sealed) {
      try {
        return box.open(sealed);
      } catch (error) {
        // AES-GCM's authentication failure, or a value naming a key id this box does not have.
        if (!(error instanceof Error) || !/unable to authenticate|unknown key/.test(error.message)) throw error;
        if (!logged) {
          logged = true;
          logger.error(MISMATCH);
        }
        throw new PlatformError('UNAVAILABLE', MISMATCH, { cause: error });
      }
    },
  };
}
