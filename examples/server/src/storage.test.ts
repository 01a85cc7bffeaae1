import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAesGcmSecretBox, generateSecretKey, isPlatformError, type DeliveryRecord } from '@agent-platform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { DATA_FILES, explainKeyMismatch, openStorage, prepareDataDir, resolveSecretKey } from './storage.js';
import { recordingLogger } from '../test-support/recording-logger.js';

const parent = mkdtempSync(path.join(tmpdir(), 'agent-platform-storage-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => path.join(parent, `data-${++dirs}`);
const configFor = (dataDir: string, secretKey?: string) =>
  loadConfig({ AGENT_PLATFORM_DATA_DIR: dataDir, ...(secretKey ? { AGENT_PLATFORM_SECRET_KEY: secretKey } : {}) });

describe('the secret key and the data directory', () => {
  it('generates a development key once, and opens the directory with it at every start', () => {
    const dataDir = freshDir();
    const { logger, messages } = recordingLogger();
    const key = resolveSecretKey(configFor(dataDir), logger);
    expect(messages('warn')).toEqual([expect.stringContaining('generated a development key')]);
    expect(readFileSync(path.join(dataDir, DATA_FILES.secretKey), 'utf8').trim()).toBe(key);
    expect(existsSync(path.join(dataDir, DATA_FILES.secretKeyCheck))).toBe(true);
    expect(resolveSecretKey(configFor(dataDir), logger)).toBe(key);
    // The same key given in the variable opens it too.
    expect(resolveSecretKey(configFor(dataDir, key), logger)).toBe(key);
  });

  it('refuses a key that does not open the stored secrets, naming AGENT_PLATFORM_SECRET_KEY (a directory made with the development key)', () => {
    const dataDir = freshDir();
    const { logger } = recordingLogger();
    resolveSecretKey(configFor(dataDir), logger);
    expect(() => resolveSecretKey(configFor(dataDir, generateSecretKey()), logger)).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        message: expect.stringMatching(
          /^AGENT_PLATFORM_SECRET_KEY does not open the secrets stored in .*: they were sealed with the development key generated in .*secret-key.*Unset AGENT_PLATFORM_SECRET_KEY/,
        ),
      }),
    );
  });

  it('refuses a key that does not open the stored secrets (a directory made with another key in the variable)', () => {
    const dataDir = freshDir();
    const { logger } = recordingLogger();
    resolveSecretKey(configFor(dataDir, generateSecretKey()), logger);
    expect(() => resolveSecretKey(configFor(dataDir, generateSecretKey()), logger)).toThrow(
      /^AGENT_PLATFORM_SECRET_KEY does not open the secrets stored in .*: they were sealed with another key/,
    );
    // Unset, the server must not generate a key that opens nothing.
    expect(() => resolveSecretKey(configFor(dataDir), logger)).toThrow(
      /^AGENT_PLATFORM_SECRET_KEY is not set, and the secrets stored in .* were sealed with a key not kept there/,
    );
    expect(existsSync(path.join(dataDir, DATA_FILES.secretKey))).toBe(false);
  });

  it('explains a stored secret that does not open (PostgreSQL, no check at start): 503 naming the variable, logged once', () => {
    const sealed = createAesGcmSecretBox({ keys: { k1: generateSecretKey() } }).seal('ghp_token');
    const { logger, messages } = recordingLogger();
    const box = explainKeyMismatch(createAesGcmSecretBox({ keys: { k1: generateSecretKey() } }), logger);
    for (let i = 0; i < 2; i++) {
      let caught: unknown;
      try {
        box.open(sealed);
      } catch (error) {
        caught = error;
      }
      expect(isPlatformError(caught) && caught.status).toBe(503);
      expect((caught as Error).message).toMatch(/does not open with AGENT_PLATFORM_SECRET_KEY/);
    }
    expect(messages('error')).toHaveLength(1);
    expect(box.open(box.seal('fine'))).toBe('fine');
  });
});

describe('the data directory lock', () => {
  it('refuses a directory another live process holds, and takes over one whose process is gone', () => {
    const dataDir = freshDir();
    prepareDataDir(dataDir);
    const lock = path.join(dataDir, DATA_FILES.lock);
    expect(readFileSync(lock, 'utf8').trim()).toBe(String(process.pid));

    const other = freshDir();
    const otherLock = path.join(other, DATA_FILES.lock);
    mkdirSync(other, { recursive: true });
    writeFileSync(otherLock, `${process.ppid}\n`); // alive: the test runner's parent
    expect(() => prepareDataDir(other)).toThrow(/is in use by process \d+ .*AGENT_PLATFORM_DATA_DIR/);

    writeFileSync(otherLock, '2147483646\n'); // no such process
    expect(prepareDataDir(other)).toBe(other);
    expect(readFileSync(otherLock, 'utf8').trim()).toBe(String(process.pid));
  });
});

describe('memory storage', () => {
  it('keeps the deliveries the AGENT_PLATFORM_MEMORY_* bounds allow, and says so', async () => {
    const { logger, messages } = recordingLogger();
    const config = loadConfig({
      AGENT_PLATFORM_STORAGE: 'memory',
      AGENT_PLATFORM_MEMORY_MAX_DELIVERIES: '3',
      AGENT_PLATFORM_MEMORY_MAX_DELIVERIES_PER_ORG: '2',
    });
    const storage = await openStorage(config, logger);
    expect(messages('warn')).toEqual([
      'AGENT_PLATFORM_STORAGE=memory: nothing is kept after the server stops; meanwhile it keeps the newest 3 deliveries (2 per org)',
    ]);
    const busy = [1, 2, 3].map((n) => delivery('org-busy', n));
    const other = [4, 5].map((n) => delivery('org-other', n));
    for (const record of [...busy, ...other]) await storage.deliveries.insert(record);
    // The busy org's third evicted its first (2 per org); the other org's second, the store's oldest (3 in all).
    expect((await storage.deliveries.list('org-busy', { limit: 10, offset: 0 })).items).toEqual([busy[2]]);
    expect((await storage.deliveries.list('org-other', { limit: 10, offset: 0 })).items).toEqual([...other].reverse());
    await storage.close();
  });

  it('logs the default bounds, and unlimited ones', async () => {
    const { logger, messages } = recordingLogger();
    for (const [total, perOrg] of [
      ['', ''],
      ['unlimited', ''],
      ['', 'unlimited'],
      ['unlimited', 'unlimited'],
    ]) {
      const env = { AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_MEMORY_MAX_DELIVERIES: total, AGENT_PLATFORM_MEMORY_MAX_DELIVERIES_PER_ORG: perOrg };
      await (await openStorage(loadConfig(env), logger)).close();
    }
    expect(messages('warn').map((message) => message.replace(/.*; meanwhile it keeps /, ''))).toEqual([
      'the newest 10,000 deliveries (1,000 per org)',
      'the newest 1,000 deliveries per org',
      'the newest 10,000 deliveries',
      'every delivery',
    ]);
  });
});

/** A delivery of `orgId` received `seconds` after a fixed instant. */
function delivery(orgId: string, seconds: number): DeliveryRecord {
  return {
    id: `dlv_${orgId}_${seconds}`,
    org_id: orgId,
    source: 'github',
    provider_delivery_id: null,
    event_key: 'pull_request.opened',
    status: 'unmatched',
    detail: null,
    outcomes: [],
    runs_created: [],
    replay_of: null,
    received_at: new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString(),
    payload_json: JSON.stringify({ action: 'opened', number: seconds }),
    dedup_key: `github:${orgId}:${seconds}`,
  };
}
