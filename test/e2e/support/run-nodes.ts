/**
 * "Processes" for run state-machine tests: engines over one shared backend (memory, embedded
 * PGlite, or a throwaway database on the local PostgreSQL server), each with its own adapter —
 * its own pool on PostgreSQL — its own executor and its own change-feed subscription, as an
 * API-only server and worker processes would have.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  type AgentPlatform,
  type AgentPlatformOptions,
  type RunQueue,
  type SandboxRuntime,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPGliteStorage, createPostgresStorage } from '@agent-platform/storage-postgres';

export const ADMIN_URL = process.env.AGENT_PLATFORM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** One statement on the server's admin database (CREATE / DROP DATABASE). */
export async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database on the test server, named `<prefix>_<random>`; its name (to drop) and URL. */
export async function createTestDatabase(prefix: string): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** What reference-server processes on the database at `url` share: alice@acme's API key, the secret key, JSON logs. */
export function serverEnv(url: string, apiKey: string, secretKey: string): Record<string, string> {
  return { DATABASE_URL: url, AGENT_PLATFORM_API_KEYS: `alice@acme:${apiKey}`, AGENT_PLATFORM_SECRET_KEY: secretKey, AGENT_PLATFORM_LOG_FORMAT: 'json' };
}

export interface SharedBackend {
  readonly name: string;
  /** An adapter over the backend, as a process of its own would open it. */
  open(): Promise<StorageAdapter>;
  close(): Promise<void>;
}

export async function memoryBackend(): Promise<SharedBackend> {
  const storage = createMemoryStorage();
  // One store in one process: every "process" shares the adapter; closing one must not close it.
  return { name: 'memory', open: async () => ({ ...storage, close: async () => {} }), close: () => storage.close() };
}

/**
 * The first PGlite database a file asks for, kept as a template: each backend gets a clone of it.
 * A clone is a new instance over a copy of its freshly initialized files, the same empty database
 * as `PGlite.create()` makes, for about half the CPU time (`create` runs initdb in WASM first).
 */
let pgliteTemplate: Promise<PGlite> | undefined;

afterAll(async () => {
  const template = pgliteTemplate;
  pgliteTemplate = undefined;
  await (await template)?.close();
});

export async function pgliteBackend(): Promise<SharedBackend> {
  const { PGlite } = await import('@electric-sql/pglite');
  pgliteTemplate ??= PGlite.create();
  const db = (await (await pgliteTemplate).clone()) as PGlite;
  const opened: StorageAdapter[] = [];
  return {
    name: 'pglite',
    open: async () => {
      const storage = await createPGliteStorage({ db });
      opened.push(storage);
      return storage;
    },
    close: async () => {
      for (const storage of opened) await storage.close().catch(() => {});
      await db.close();
    },
  };
}

export async function postgresBackend(): Promise<SharedBackend> {
  const { name, url } = await createTestDatabase('ap_runs');
  const opened: StorageAdapter[] = [];
  // The first open migrates; later ones find the schema in place.
  return {
    name: 'postgres',
    open: async () => {
      const storage = await createPostgresStorage({ connectionString: url, pool: { max: 6 } });
      opened.push(storage);
      return storage;
    },
    close: async () => {
      for (const storage of opened) await storage.close().catch(() => {});
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

export const BACKENDS: readonly (() => Promise<SharedBackend>)[] = [memoryBackend, pgliteBackend, postgresBackend];

export interface NodeOptions {
  /** Sandboxes for this node; with `agentCommand` it can execute runs. */
  runtime?: SandboxRuntime;
  agentCommand?: string;
  /** Executes runs (a worker); `false`: API only. Default: when it has a runtime. */
  execute?: boolean;
  /** Wraps the node's storage adapter (to hold a step at a gate). */
  wrapStorage?: (storage: StorageAdapter) => StorageAdapter;
  /** Wraps the queue its executor claims from. */
  wrapQueue?: (queue: RunQueue) => RunQueue;
  executor?: AgentPlatformOptions['executor'];
}

export interface RunNode {
  platform: AgentPlatform;
  storage: StorageAdapter;
  stop(): Promise<void>;
}

export async function startNode(backend: SharedBackend, options: NodeOptions = {}): Promise<RunNode> {
  const opened = await backend.open();
  const storage = options.wrapStorage ? options.wrapStorage(opened) : opened;
  const platform = createAgentPlatform({
    storage,
    secrets: createAesGcmSecretBox({ keys: { k: SECRET_KEY } }),
    publicUrl: 'http://localhost',
    ...(options.runtime ? { runtime: options.runtime, agent: createCommandAgentRunner({ command: options.agentCommand ?? 'echo done' }) } : {}),
    ...(options.wrapQueue ? { queue: options.wrapQueue(opened.runQueue) } : {}),
    executor: { pollIntervalMs: 200, retryBackoffMs: 20, leaseMs: 3_000, ...options.executor },
  });
  await platform.start({ executeRuns: options.execute ?? Boolean(options.runtime) });
  return { platform, storage, stop: () => platform.stop() };
}

/** Polls `read` until `done` holds; throws with the last value after `ms`. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${ms} ms; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A gate a test opens: `wait()` resolves (or rejects) when it does; `reached` when first waited on. */
export class Gate {
  private openFn!: () => void;
  private failFn!: (error: Error) => void;
  private readonly opened: Promise<void>;
  private reachedFn!: () => void;
  readonly reached: Promise<void>;
  hits = 0;

  constructor() {
    this.opened = new Promise<void>((resolve, reject) => {
      this.openFn = resolve;
      this.failFn = reject;
    });
    this.opened.catch(() => {});
    this.reached = new Promise<void>((resolve) => {
      this.reachedFn = resolve;
    });
  }

  wait(): Promise<void> {
    this.hits += 1;
    this.reachedFn();
    return this.opened;
  }

  open(): void {
    this.openFn();
  }

  fail(error: Error): void {
    this.failFn(error);
  }
}
