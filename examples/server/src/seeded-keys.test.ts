import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, type AgentPlatform } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSeededKeys } from './config.js';
import { readLedger, syncSeededKeys } from './seeded-keys.js';
import { recordingLogger } from '../test-support/recording-logger.js';

const parent = mkdtempSync(path.join(tmpdir(), 'agent-platform-seeds-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const ALICE_KEY = 'alice-seeded-key-0000000000';
const BOB_KEY = 'bob-seeded-key-000000000000';

/**
 * One platform stands for the stored data across "restarts" (each a `start` call), as PGlite
 * keeps it; the ledger is a file beside it, as in the data directory.
 */
let platform: AgentPlatform;
let ledgerFile: string;
let restarts = 0;
beforeEach(() => {
  platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k1: generateSecretKey() } }),
    publicUrl: 'http://localhost:3000',
  });
  ledgerFile = path.join(parent, `ledger-${++restarts}.json`);
});

/** A start with the variable set to `variable`, or not set at all (`undefined`). */
async function start(variable: string | undefined) {
  const { logger, messages } = recordingLogger();
  await syncSeededKeys(platform, parseSeededKeys(variable), { ledgerFile, persistent: true, keepEarlierSeeds: variable === undefined, logger });
  return messages;
}
const calls = async (key: string) => (await platform.authenticate({ apiKey: key })) !== null;

describe('keys seeded from AGENT_PLATFORM_API_KEYS', () => {
  it('revokes a seeded key taken out of the variable at the next start, and leaves keys created through the API', async () => {
    await start(`alice@acme:${ALICE_KEY},bob@acme:${BOB_KEY}`);
    expect(await calls(ALICE_KEY)).toBe(true);
    const created = await platform.apiKeys.create({ userId: 'alice', orgId: 'acme' }, { name: 'ci' });

    const messages = await start(`alice@acme:${ALICE_KEY}`);
    expect(await calls(BOB_KEY)).toBe(false);
    expect(await calls(ALICE_KEY)).toBe(true);
    expect(await calls(created.key)).toBe(true);
    expect(messages('info')).toContain('revoked an API key seeded earlier: it is no longer in AGENT_PLATFORM_API_KEYS');

    await start('');
    expect(await calls(ALICE_KEY)).toBe(false);
    expect(await calls(created.key)).toBe(true);
    expect((await platform.apiKeys.list({ userId: 'alice', orgId: 'acme' })).keys.map((key) => key.name)).toEqual(['ci']);
  });

  it('keeps the keys seeded earlier when a start does not set the variable at all (a plain restart), and says so', async () => {
    await start(`alice@acme:${ALICE_KEY}`);
    const messages = await start(undefined);
    expect(await calls(ALICE_KEY)).toBe(true);
    expect(messages('info')).toContain(
      "AGENT_PLATFORM_API_KEYS is not set: the API keys it seeded at an earlier start stay valid (set AGENT_PLATFORM_API_KEYS='' to revoke them)",
    );
    expect(messages('info')).not.toContain('revoked an API key seeded earlier: it is no longer in AGENT_PLATFORM_API_KEYS');
    // Set again later, the variable rules again: '' revokes.
    await start(undefined);
    expect(await calls(ALICE_KEY)).toBe(true);
    await start('');
    expect(await calls(ALICE_KEY)).toBe(false);
  });

  it('gives a key the role its entry names (default owner), and follows a change of it', async () => {
    await start(`alice@acme/viewer:${ALICE_KEY},bob@acme:${BOB_KEY}`);
    expect(await platform.authenticate({ apiKey: ALICE_KEY })).toEqual({ userId: 'alice', orgId: 'acme', role: 'viewer' });
    expect(await platform.authenticate({ apiKey: BOB_KEY })).toEqual({ userId: 'bob', orgId: 'acme', role: 'owner' });
    await start(`alice@acme/admin:${ALICE_KEY}`);
    expect(await platform.authenticate({ apiKey: ALICE_KEY })).toEqual({ userId: 'alice', orgId: 'acme', role: 'admin' });
    expect(() => parseSeededKeys(`alice@acme/boss:${ALICE_KEY}`)).toThrow(
      'AGENT_PLATFORM_API_KEYS entry 1 names the role "boss"; roles are viewer, member, admin, owner',
    );
  });

  it('moves a key to another user or org rather than refusing it', async () => {
    await start(`alice@acme:${ALICE_KEY}`);
    await start(`alice@other:${ALICE_KEY}`);
    expect(await platform.authenticate({ apiKey: ALICE_KEY })).toEqual({ userId: 'alice', orgId: 'other', role: 'owner' });
  });

  it('never takes over a key it did not seed: one created through the API stays when the variable drops it', async () => {
    await start(`alice@acme:${ALICE_KEY}`);
    const created = await platform.apiKeys.create({ userId: 'alice', orgId: 'acme' }, { name: 'ci' });
    await start(`alice@acme:${ALICE_KEY},alice@acme:${created.key}`);
    await start(`alice@acme:${ALICE_KEY}`);
    expect(await calls(created.key)).toBe(true);
    expect(readLedger(ledgerFile).keys).toHaveLength(1);
  });

  it('refuses, naming the entry, a key stored for someone else that it did not seed', async () => {
    await start(`alice@acme:${ALICE_KEY}`);
    const created = await platform.apiKeys.create({ userId: 'alice', orgId: 'acme' }, {});
    await expect(start(`bob@acme:${created.key}`)).rejects.toThrow(/^AGENT_PLATFORM_API_KEYS entry 1: that key is already stored for another user or org$/);
  });

  it('keeps no key in the ledger, only ids and user ids', async () => {
    await start(`alice@acme:${ALICE_KEY}`);
    const text = readFileSync(ledgerFile, 'utf8');
    expect(text).not.toContain(ALICE_KEY);
    expect(JSON.parse(text)).toEqual({ keys: [expect.stringMatching(/^key_/)], users: ['alice'] });
  });
});

describe('the warning when AGENT_PLATFORM_API_KEYS is not set', () => {
  const WARNING = /^AGENT_PLATFORM_API_KEYS is not set: no API key can call the API/;

  it('is given when no stored key can call the API', async () => {
    expect((await start(''))('warn')).toEqual([expect.stringMatching(WARNING)]);
    // Seeded keys revoked: none left.
    await start(`alice@acme:${ALICE_KEY}`);
    expect((await start(''))('warn')).toEqual([expect.stringMatching(WARNING)]);
  });

  it('is not given when keys created through the API are stored', async () => {
    await start(`alice@acme:${ALICE_KEY}`);
    await platform.apiKeys.create({ userId: 'alice', orgId: 'acme' }, { name: 'ci' });
    const messages = await start('');
    expect(messages('warn')).toEqual([]);
    expect(messages('info')).toContain('AGENT_PLATFORM_API_KEYS is not set: the API keys stored earlier (created through the API) can call the API');
  });

  it('with PostgreSQL (no data directory for a ledger) says only stored keys can call it', async () => {
    const { logger, messages } = recordingLogger();
    await syncSeededKeys(platform, [], { ledgerFile: null, persistent: true, logger });
    expect(messages('warn')).toEqual([]);
    expect(messages('info')).toEqual(['AGENT_PLATFORM_API_KEYS is not set: only API keys already stored in the database can call the API']);
  });

  it('in memory (nothing stored before) warns', async () => {
    const { logger, messages } = recordingLogger();
    await syncSeededKeys(platform, [], { ledgerFile: null, persistent: false, logger });
    expect(messages('warn')).toEqual([expect.stringMatching(WARNING)]);
  });

  it('at a first start with no key anywhere, creates one, prints it once with the console, and counts it at the next start', async () => {
    const { logger, messages } = recordingLogger();
    const firstStart = { consoleUrl: 'http://localhost:3000/console' };
    await syncSeededKeys(platform, [], { ledgerFile, persistent: true, logger, firstStart });
    const [line] = messages('warn');
    const key = /shown only now: (\S+)/.exec(line ?? '')?.[1] as string;
    expect(line).toContain('http://localhost:3000/console');
    expect(line).toContain('AGENT_PLATFORM_API_KEYS');
    expect(await platform.authenticate({ apiKey: key })).toEqual({ userId: 'admin', orgId: 'default', role: 'owner' });

    const later = recordingLogger();
    await syncSeededKeys(platform, [], { ledgerFile, persistent: true, logger: later.logger, firstStart });
    expect(later.messages('warn')).toEqual([]);
    expect(later.messages('info')).toContain('AGENT_PLATFORM_API_KEYS is not set: the API keys stored earlier (created through the API) can call the API');
    expect(await platform.storage.apiKeys.listByUser('admin')).toHaveLength(1);
  });
});
