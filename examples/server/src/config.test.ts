import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR, launchDirectory, loadConfig, parseStorage } from './config.js';

describe('the data directory', () => {
  it('is ./.agent-platform in the directory pnpm start was typed in (INIT_CWD), not the package script’s', () => {
    expect(parseStorage({ INIT_CWD: '/home/me/agent-platform' })).toEqual({ kind: 'pglite', dataDir: '/home/me/agent-platform/.agent-platform' });
    // `pnpm --dir examples/express-server start` typed at the root: the same directory.
    expect(loadConfig({ INIT_CWD: '/home/me/agent-platform' }).storage).toEqual(parseStorage({ INIT_CWD: '/home/me/agent-platform' }));
  });

  it('takes a relative AGENT_PLATFORM_DATA_DIR from there too, and an absolute one as it is', () => {
    expect(parseStorage({ INIT_CWD: '/srv/app', AGENT_PLATFORM_DATA_DIR: 'data/dev' })).toEqual({ kind: 'pglite', dataDir: '/srv/app/data/dev' });
    expect(parseStorage({ INIT_CWD: '/srv/app', AGENT_PLATFORM_DATA_DIR: '../shared' })).toEqual({ kind: 'pglite', dataDir: '/srv/shared' });
    expect(parseStorage({ INIT_CWD: '/srv/app', AGENT_PLATFORM_DATA_DIR: '/var/lib/agents' })).toEqual({ kind: 'pglite', dataDir: '/var/lib/agents' });
  });

  it('falls back to the working directory when not started by a package manager', () => {
    expect(launchDirectory({})).toBe(process.cwd());
    expect(parseStorage({ INIT_CWD: ' ' })).toEqual({ kind: 'pglite', dataDir: path.resolve(process.cwd(), DEFAULT_DATA_DIR) });
  });

  it('is not used with PostgreSQL or memory storage', () => {
    expect(parseStorage({ INIT_CWD: '/srv/app', AGENT_PLATFORM_STORAGE: 'memory' })).toEqual({ kind: 'memory' });
    expect(parseStorage({ DATABASE_URL: 'postgres://u:p@db/agents' })).toEqual({ kind: 'postgres', url: 'postgres://u:p@db/agents' });
  });
});

describe('AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE', () => {
  it('is off unless set: subscribers on private addresses are refused by default', () => {
    expect(loadConfig({ AGENT_PLATFORM_STORAGE: 'memory' }).outboundAllowPrivate).toBe(false);
    expect(loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE: ' ' }).outboundAllowPrivate).toBe(false);
  });

  it.each(['true', '1', 'TRUE', 'on'])('%s turns it on', (value) => {
    expect(loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE: value }).outboundAllowPrivate).toBe(true);
  });

  it.each(['false', '0', 'off'])('%s keeps it off', (value) => {
    expect(loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE: value }).outboundAllowPrivate).toBe(false);
  });

  it('stops the server on anything else, naming the variable', () => {
    expect(() => loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE: 'maybe' })).toThrow(
      /AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE must be on or off/,
    );
  });
});
