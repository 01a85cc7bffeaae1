import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR, DEFAULT_SHUTDOWN_GRACE_MS, launchDirectory, loadConfig, parseStorage } from './config.js';

const MEMORY_DEFAULTS = { kind: 'memory', maxDeliveries: 10_000, maxDeliveriesPerOrg: 1_000 };

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
    expect(parseStorage({ INIT_CWD: '/srv/app', AGENT_PLATFORM_STORAGE: 'memory' })).toEqual(MEMORY_DEFAULTS);
    expect(parseStorage({ DATABASE_URL: 'postgres://u:p@db/agents' })).toEqual({ kind: 'postgres', url: 'postgres://u:p@db/agents' });
  });
});

describe('the memory store’s bounds', () => {
  const MAX = 'AGENT_PLATFORM_MEMORY_MAX_DELIVERIES';
  const PER_ORG = 'AGENT_PLATFORM_MEMORY_MAX_DELIVERIES_PER_ORG';

  it('are 10,000 deliveries in all and 1,000 per org unless set (blank is unset)', () => {
    expect(loadConfig({ AGENT_PLATFORM_STORAGE: 'memory' }).storage).toEqual(MEMORY_DEFAULTS);
    expect(parseStorage({ AGENT_PLATFORM_STORAGE: 'memory', [MAX]: ' ', [PER_ORG]: '' })).toEqual(MEMORY_DEFAULTS);
  });

  it('take positive integers, each on its own, and "unlimited"', () => {
    expect(parseStorage({ AGENT_PLATFORM_STORAGE: 'memory', [MAX]: '50000', [PER_ORG]: ' 200 ' })).toEqual({
      kind: 'memory',
      maxDeliveries: 50_000,
      maxDeliveriesPerOrg: 200,
    });
    expect(parseStorage({ AGENT_PLATFORM_STORAGE: 'memory', [MAX]: '1' })).toEqual({ ...MEMORY_DEFAULTS, maxDeliveries: 1 });
    expect(parseStorage({ AGENT_PLATFORM_STORAGE: 'memory', [PER_ORG]: 'unlimited' })).toEqual({ ...MEMORY_DEFAULTS, maxDeliveriesPerOrg: Infinity });
    expect(parseStorage({ AGENT_PLATFORM_STORAGE: 'memory', [MAX]: 'Unlimited', [PER_ORG]: 'UNLIMITED' })).toEqual({
      kind: 'memory',
      maxDeliveries: Infinity,
      maxDeliveriesPerOrg: Infinity,
    });
  });

  it.each(['0', '-5', '1.5', '1e4', '10k', '0x10', 'Infinity', '9007199254740993', 'none'])('stop the server on %j, naming the variable', (value) => {
    for (const name of [MAX, PER_ORG]) {
      expect(() => loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', [name]: value })).toThrow(
        expect.objectContaining({ name: 'ConfigError', message: `${name} must be a positive integer or "unlimited", got "${value}"` }),
      );
    }
  });

  it('stop the server when set for PGlite or PostgreSQL, where they would bound nothing', () => {
    for (const name of [MAX, PER_ORG]) {
      expect(() => loadConfig({ INIT_CWD: '/srv/app', [name]: '100' })).toThrow(
        `${name} applies only to AGENT_PLATFORM_STORAGE=memory (this server stores in pglite): unset it, or set AGENT_PLATFORM_STORAGE=memory`,
      );
      expect(() => parseStorage({ DATABASE_URL: 'postgres://u:p@db/agents', [name]: 'unlimited' })).toThrow(
        /applies only to AGENT_PLATFORM_STORAGE=memory \(this server stores in postgres\)/,
      );
    }
    // Blank is unset.
    expect(parseStorage({ INIT_CWD: '/srv/app', [MAX]: ' ' })).toEqual({ kind: 'pglite', dataDir: '/srv/app/.agent-platform' });
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

describe('AGENT_PLATFORM_SHUTDOWN_GRACE_MS', () => {
  const grace = (value?: string) => loadConfig({ AGENT_PLATFORM_STORAGE: 'memory', AGENT_PLATFORM_SHUTDOWN_GRACE_MS: value }).shutdownGraceMs;

  it('defaults to 5 s, inside the 10 s `docker stop` waits before SIGKILL', () => {
    expect(grace()).toBe(DEFAULT_SHUTDOWN_GRACE_MS);
    expect(grace(' ')).toBe(5_000);
  });

  it('takes whole milliseconds from 0 (hand the runs back at once) to an hour', () => {
    expect(grace('0')).toBe(0);
    expect(grace(' 300 ')).toBe(300);
    expect(grace('3600000')).toBe(3_600_000);
  });

  it.each(['-1', '1.5', '10s', 'abc', '3600001'])('stops the server on %s, naming the variable', (value) => {
    expect(() => grace(value)).toThrow(`AGENT_PLATFORM_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to 3600000, got "${value}"`);
  });
});

describe('telemetry settings', () => {
  const memory = { AGENT_PLATFORM_STORAGE: 'memory' };

  it('serve metrics on the API port by default, and trace nothing without an OTLP endpoint', () => {
    expect(loadConfig(memory)).toMatchObject({ metrics: true, metricsPort: null, otlpTraces: false });
  });

  it('AGENT_PLATFORM_METRICS=off turns metrics off; anything but on/off stops the server', () => {
    expect(loadConfig({ ...memory, AGENT_PLATFORM_METRICS: 'off' }).metrics).toBe(false);
    expect(() => loadConfig({ ...memory, AGENT_PLATFORM_METRICS: 'sometimes' })).toThrow(/AGENT_PLATFORM_METRICS must be on or off/);
  });

  it('AGENT_PLATFORM_METRICS_PORT takes a port, only with metrics on', () => {
    expect(loadConfig({ ...memory, AGENT_PLATFORM_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ ...memory, AGENT_PLATFORM_METRICS_PORT: ' ' }).metricsPort).toBeNull();
    for (const bad of ['http', '70000', '-1', '9464.5'])
      expect(() => loadConfig({ ...memory, AGENT_PLATFORM_METRICS_PORT: bad })).toThrow(/AGENT_PLATFORM_METRICS_PORT must be an integer from 0 to 65535/);
    expect(() => loadConfig({ ...memory, AGENT_PLATFORM_METRICS: 'off', AGENT_PLATFORM_METRICS_PORT: '9464' })).toThrow(
      'AGENT_PLATFORM_METRICS_PORT is set but AGENT_PLATFORM_METRICS=off: unset one of them',
    );
  });

  it('traces with an OTLP endpoint (either variable), unless OTEL_SDK_DISABLED=true', () => {
    expect(loadConfig({ ...memory, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).otlpTraces).toBe(true);
    expect(loadConfig({ ...memory, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' }).otlpTraces).toBe(true);
    expect(loadConfig({ ...memory, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).otlpTraces).toBe(false);
    expect(() => loadConfig({ ...memory, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  });

  it('AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES lists the images owners may pick, with docker only', () => {
    const docker = { ...memory, AGENT_PLATFORM_SANDBOX: 'docker' };
    expect(loadConfig(docker).sandboxAllowedImages).toEqual([]);
    expect(loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES: ' ghcr.io/acme/sandbox:* , python:3.12 ' }).sandboxAllowedImages).toEqual([
      'ghcr.io/acme/sandbox:*',
      'python:3.12',
    ]);
    for (const bad of ['python:3.12,,node:22', 'ghcr.io/*/sandbox', 'two words'])
      expect(() => loadConfig({ ...docker, AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES: bad })).toThrow(
        /AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES entry \d must be an image reference/,
      );
    expect(() => loadConfig({ ...memory, AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES: 'python:3.12' })).toThrow(
      'AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES needs AGENT_PLATFORM_SANDBOX=docker: the process runtime runs no images',
    );
  });
});
