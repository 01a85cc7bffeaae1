/**
 * The reference server's storage and the key that seals secrets in it.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateSecretKey, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPGliteStorage, createPostgresStorage } from '@agent-platform/storage-postgres';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';

export async function openStorage(config: ServerConfig, logger: Logger): Promise<StorageAdapter> {
  const { storage } = config;
  if (storage.kind === 'memory') {
    logger.warn('AGENT_PLATFORM_STORAGE=memory: nothing is kept after the server stops');
    return createMemoryStorage();
  }
  if (storage.kind === 'pglite') {
    const dataDir = path.resolve(storage.dataDir);
    mkdirSync(dataDir, { recursive: true });
    logger.info({ dataDir }, 'storage: embedded PGlite (set DATABASE_URL for PostgreSQL)');
    return createPGliteStorage({ dataDir: path.join(dataDir, 'pglite') });
  }
  // The URL may hold a password: log only where it points.
  const url = new URL(storage.url);
  logger.info({ host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1) }, 'storage: PostgreSQL');
  return createPostgresStorage({ connectionString: storage.url });
}

/**
 * The key sealing secrets at rest. Without `AGENT_PLATFORM_SECRET_KEY`: with PGlite, a key is
 * generated once and kept beside the data (mode 600), so stored secrets survive restarts; in
 * memory, a key for this run only.
 */
export function resolveSecretKey(config: ServerConfig, logger: Logger): string {
  if (config.secretKey) return config.secretKey;
  if (config.storage.kind === 'pglite') {
    const dataDir = path.resolve(config.storage.dataDir);
    mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'secret-key');
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    const key = generateSecretKey();
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    logger.warn({ file }, 'AGENT_PLATFORM_SECRET_KEY is not set: generated a development key and kept it beside the data; set your own key in production');
    return key;
  }
  logger.warn('AGENT_PLATFORM_SECRET_KEY is not set: using a generated development key; secrets stored now cannot be read after a restart');
  return generateSecretKey();
}
