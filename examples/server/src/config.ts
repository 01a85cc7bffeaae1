/**
 * The reference server's configuration, read from the environment. Bad values stop the server
 * with a message that names the variable; nothing here is ever logged with its secret.
 * @module
 */
import path from 'node:path';
import { DEFAULT_MAX_DELIVERIES, DEFAULT_MAX_DELIVERIES_PER_ORG } from '@agent-platform/storage-memory';
import { ROLES, type Role } from '@agent-platform/core';
import { parseOidcConfig, type OidcConfig } from './oidc-config.js';
import { parseContainment, type ContainmentConfig } from './containment-config.js';
import { parseDockerHosts } from './docker-hosts-config.js';
import { parseWarmPool } from './warm-pool-config.js';

export interface SeededKey {
  userId: string;
  orgId: string;
  key: string;
  /** The key's role in the org; default `owner`. */
  role?: Role;
}

export interface ServerConfig {
  port: number;
  host: string;
  publicUrl: string;
  seededKeys: SeededKey[];
  /** Whether `AGENT_PLATFORM_API_KEYS` is set at all (`''` included): unset keeps the keys it seeded at an earlier start. */
  seededKeysSet: boolean;
  /** Base64 of 32 bytes; `null` when none was given (a development key is generated). */
  secretKey: string | null;
  logLevel: string;
  /** GitHub webhook secrets (several during a rotation); empty disables the GitHub endpoint. */
  githubWebhookSecrets: string[];
  /** Installation ids or account logins linked to orgs. */
  githubLinks: GithubLinkConfig[];
  /** Where records live. */
  storage: StorageConfig;
  /** Whether this process executes runs (`AGENT_PLATFORM_EXECUTOR=off`: API only, workers run them). */
  executor: boolean;
  /** How long a worker holds a run without renewing its lease, in milliseconds. */
  runLeaseMs: number;
  /**
   * On SIGTERM, how long the runs executing here may take to finish before they are handed back
   * to another process (`AGENT_PLATFORM_SHUTDOWN_GRACE_MS`, default {@link DEFAULT_SHUTDOWN_GRACE_MS}).
   */
  shutdownGraceMs: number;
  /** Runs this process executes at once. */
  runConcurrency: number;
  /** Runs RUNNING at once per org, across every process sharing the storage. */
  runsPerOrg: number;
  /** Runs RUNNING at once overall, across every process sharing the storage (`Infinity`: no limit). */
  runsMax: number;
  /** Where agents run. */
  sandbox: 'process' | 'docker';
  /** Images offered as sandbox specs by the Docker runtime; the first is the default. */
  dockerImages: string[];
  /**
   * Images owners may pick for their sandboxes (their `sandbox_runtime_container_image` /
   * `sandbox_base_container_image`), besides `dockerImages`: exact references or prefixes ending
   * in `*` (`AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES`, Docker only; default none).
   */
  sandboxAllowedImages: string[];
  /**
   * Docker engines to place sandboxes on (`AGENT_PLATFORM_DOCKER_HOSTS`, comma-separated
   * `unix://` or `tcp://` addresses, each optionally `name=` first); empty: one engine,
   * `DOCKER_HOST` or the local socket.
   */
  dockerHosts: string[];
  /** Docker sandboxes' runtime class and egress allowlist (`AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS`, `AGENT_PLATFORM_SANDBOX_EGRESS*`). */
  containment: ContainmentConfig;
  /** Containers of the default image kept started for runs (`AGENT_PLATFORM_DOCKER_WARM_POOL`, Docker only; default 0). */
  dockerWarmPool: number;
  /** The agent's command line; `null` for the demo agent. */
  agentCommand: string | null;
  /** Whether owners with `llm_model` set get the built-in LLM agent (`AGENT_PLATFORM_BUILTIN_AGENT`, default on). */
  builtInAgent: boolean;
  /**
   * In confirmation mode with a security analyzer, the lowest risk that waits for the owner
   * (`AGENT_PLATFORM_CONFIRMATION_THRESHOLD`: `low`, `medium` or `high`, default `high`).
   */
  confirmationThreshold: 'LOW' | 'MEDIUM' | 'HIGH';
  /**
   * Where the built-in agent's web search (`tavily_search`, for owners with `search_api_key`) sends
   * its searches: Tavily's API or a compatible service (`AGENT_PLATFORM_SEARCH_BASE_URL`; `null`:
   * `https://api.tavily.com`).
   */
  searchBaseUrl: string | null;
  /**
   * Whether outbound-event subscribers may be on loopback, private and link-local addresses
   * (`AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE`, default off: users could otherwise make the server
   * call its own network).
   */
  outboundAllowPrivate: boolean;
  /** Whether the process serves its metrics for Prometheus at `/metrics` (`AGENT_PLATFORM_METRICS`, default on). */
  metrics: boolean;
  /**
   * A port of its own for `/metrics` (`AGENT_PLATFORM_METRICS_PORT`, on `HOST`); `null`: the
   * server serves `/metrics` on its API port, and a worker (which has no HTTP server) serves none.
   */
  metricsPort: number | null;
  /**
   * Whether spans are exported over OTLP/HTTP: `OTEL_EXPORTER_OTLP_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not `true`). The
   * exporter reads those and the other `OTEL_*` variables itself.
   */
  otlpTraces: boolean;
  /** Console sign-in with OpenID Connect (`AGENT_PLATFORM_OIDC_*`, see `oidc-config.ts`); `null`: off, API keys only. */
  oidc: OidcConfig | null;
}

export type StorageConfig =
  /**
   * The newest `maxDeliveries` deliveries are kept, at most `maxDeliveriesPerOrg` per org
   * (`AGENT_PLATFORM_MEMORY_MAX_DELIVERIES`, `AGENT_PLATFORM_MEMORY_MAX_DELIVERIES_PER_ORG`;
   * `Infinity`: no bound), so a demo left running stays bounded.
   */
  | { kind: 'memory'; maxDeliveries: number; maxDeliveriesPerOrg: number }
  /** `dataDir` is absolute (see {@link launchDirectory}). */
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; url: string };

export type GithubLinkConfig = { orgId: string; installationId: string } | { orgId: string; account: string };

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** `on`/`off` (also `true`/`false`, `1`/`0`); unset: `fallback`. */
function parseSwitch(name: string, value: string | undefined, fallback: boolean): boolean {
  const text = value?.trim().toLowerCase();
  if (!text) return fallback;
  if (['on', 'true', '1', 'yes'].includes(text)) return true;
  if (['off', 'false', '0', 'no'].includes(text)) return false;
  throw new ConfigError(`${name} must be on or off, got "${value}"`);
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

/** `user@org:key` entries, comma-separated; `user:key` means the user's own org; `user@org/viewer:key` gives the key a role (default owner). */
export function parseSeededKeys(value: string | undefined): SeededKey[] {
  if (!value?.trim()) return [];
  return value.split(',').map((entry, index) => {
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    const named = colon > 0 ? trimmed.slice(0, colon) : '';
    const key = colon > 0 ? trimmed.slice(colon + 1) : '';
    const slash = named.lastIndexOf('/');
    const role = slash >= 0 ? named.slice(slash + 1) : null;
    const who = slash >= 0 ? named.slice(0, slash) : named;
    if (role !== null && !(ROLES as readonly string[]).includes(role)) {
      throw new ConfigError(`AGENT_PLATFORM_API_KEYS entry ${index + 1} names the role "${role.slice(0, 20)}"; roles are ${ROLES.join(', ')}`);
    }
    const at = who.lastIndexOf('@');
    const userId = at >= 0 ? who.slice(0, at) : who;
    const orgId = at >= 0 ? who.slice(at + 1) : who;
    if (!userId || !orgId || key.length < 16) {
      // The entry may hold a key: say which one is wrong without echoing it.
      throw new ConfigError(`AGENT_PLATFORM_API_KEYS entry ${index + 1} must look like user@org:key or user:key, with a key of at least 16 characters`);
    }
    return { userId, orgId, key, ...(role ? { role: role as Role } : {}) };
  });
}

function parseSecretKey(value: string | undefined): string | null {
  if (!value) return null;
  if (Buffer.from(value, 'base64').length !== 32)
    throw new ConfigError('AGENT_PLATFORM_SECRET_KEY must be base64 of 32 bytes (e.g. `openssl rand -base64 32`)');
  return value;
}

function parsePublicUrl(value: string | undefined, port: number): string {
  const url = value || `http://localhost:${port}`;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError(`AGENT_PLATFORM_PUBLIC_URL must be an absolute http(s) URL, got "${url}"`);
  return url.replace(/\/+$/, '');
}

/** `AGENT_PLATFORM_SEARCH_BASE_URL`: an absolute http(s) URL, without a trailing slash; unset: Tavily's own. */
function parseSearchBaseUrl(value: string | undefined): string | null {
  const url = value?.trim();
  if (!url) return null;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError(`AGENT_PLATFORM_SEARCH_BASE_URL must be an absolute http(s) URL, like https://api.tavily.com; got "${url.slice(0, 100)}"`);
  return url.replace(/\/+$/, '');
}

function parseGithubSecrets(value: string | undefined): string[] {
  const secrets = (value ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  if (secrets.some((secret) => secret.length < 8)) throw new ConfigError('AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET entries must be at least 8 characters');
  return secrets;
}

/** `account-login-or-installation-id=org`, comma-separated: digits mean an installation id. */
export function parseGithubLinks(value: string | undefined): GithubLinkConfig[] {
  if (!value?.trim()) return [];
  return value.split(',').map((entry, index) => {
    const [ref, orgId, ...rest] = entry
      .trim()
      .split('=')
      .map((part) => part.trim());
    if (!ref || !orgId || rest.length > 0 || !/^[A-Za-z0-9-]{1,100}$/.test(ref)) {
      throw new ConfigError(`AGENT_PLATFORM_GITHUB_LINKS entry ${index + 1} must look like account-login=org or installation-id=org`);
    }
    return /^\d+$/.test(ref) ? { orgId, installationId: ref } : { orgId, account: ref };
  });
}

function parseSandbox(value: string | undefined): 'process' | 'docker' {
  if (!value || value === 'process') return 'process';
  if (value === 'docker') return 'docker';
  throw new ConfigError(`AGENT_PLATFORM_SANDBOX must be "process" or "docker", got "${value}"`);
}

/** The image sandboxes run when `AGENT_PLATFORM_DOCKER_IMAGES` names none. */
export const DEFAULT_DOCKER_IMAGE = 'debian:bookworm-slim';

function parseDockerImages(value: string | undefined): string[] {
  if (!value?.trim()) return [DEFAULT_DOCKER_IMAGE];
  return value.split(',').map((entry, index) => {
    const image = entry.trim();
    if (!image || /\s/.test(image))
      throw new ConfigError(`AGENT_PLATFORM_DOCKER_IMAGES entry ${index + 1} must be an image reference, like debian:bookworm-slim`);
    return image;
  });
}

/** `AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES`: comma-separated references or `prefix*` patterns; only the Docker runtime can run them. */
function parseAllowedImages(value: string | undefined, sandbox: 'process' | 'docker'): string[] {
  if (!value?.trim()) return [];
  if (sandbox !== 'docker') {
    throw new ConfigError('AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES needs AGENT_PLATFORM_SANDBOX=docker: the process runtime runs no images');
  }
  return value.split(',').map((entry, index) => {
    const image = entry.trim();
    if (!image || /\s/.test(image) || /\*./.test(image)) {
      throw new ConfigError(
        `AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES entry ${index + 1} must be an image reference, or a prefix ending in * (like ghcr.io/acme/sandbox:*)`,
      );
    }
    return image;
  });
}

/** `AGENT_PLATFORM_CONFIRMATION_THRESHOLD`: `low`, `medium` or `high` (any case); unset: `HIGH`. */
export function parseConfirmationThreshold(value: string | undefined): 'LOW' | 'MEDIUM' | 'HIGH' {
  const level = value?.trim().toUpperCase();
  if (!level) return 'HIGH';
  if (level === 'LOW' || level === 'MEDIUM' || level === 'HIGH') return level;
  throw new ConfigError(`AGENT_PLATFORM_CONFIRMATION_THRESHOLD must be low, medium or high, got "${value?.slice(0, 40)}"`);
}

/** Where embedded PGlite keeps its data when `AGENT_PLATFORM_DATA_DIR` names no other place. */
export const DEFAULT_DATA_DIR = './.agent-platform';

/**
 * The directory a relative path is taken from: the one `pnpm start` (or `pnpm --dir … start`) was
 * typed in, which pnpm and npm pass to scripts as `INIT_CWD`, else the working directory. A
 * package script runs in its package's directory, so without this `./.agent-platform` would be a
 * different directory for each example server, and none the README's.
 */
export function launchDirectory(env: Env = process.env): string {
  return env.INIT_CWD?.trim() || process.cwd();
}

/** The memory store's bounds, which mean nothing to another storage. */
const MEMORY_BOUNDS = ['AGENT_PLATFORM_MEMORY_MAX_DELIVERIES', 'AGENT_PLATFORM_MEMORY_MAX_DELIVERIES_PER_ORG'] as const;

/** A positive integer, or `unlimited` (`Infinity`); unset: `fallback`. */
function parseBound(name: string, value: string | undefined, fallback: number): number {
  const text = value?.trim();
  if (!text) return fallback;
  if (text.toLowerCase() === 'unlimited') return Infinity;
  const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 1) throw new ConfigError(`${name} must be a positive integer or "unlimited", got "${value}"`);
  return count;
}

/**
 * `DATABASE_URL` → PostgreSQL; otherwise embedded PGlite in `AGENT_PLATFORM_DATA_DIR` (default
 * `./.agent-platform`, relative to {@link launchDirectory}); `AGENT_PLATFORM_STORAGE=memory`
 * keeps nothing after a restart (tests, demos), and only the newest deliveries meanwhile
 * (`AGENT_PLATFORM_MEMORY_MAX_DELIVERIES`, default 10,000, and
 * `AGENT_PLATFORM_MEMORY_MAX_DELIVERIES_PER_ORG`, default 1,000; `unlimited` for no bound).
 */
export function parseStorage(env: Env): StorageConfig {
  const kind = env.AGENT_PLATFORM_STORAGE?.trim() || (env.DATABASE_URL?.trim() ? 'postgres' : 'pglite');
  if (kind === 'memory') {
    return {
      kind,
      maxDeliveries: parseBound(MEMORY_BOUNDS[0], env[MEMORY_BOUNDS[0]], DEFAULT_MAX_DELIVERIES),
      maxDeliveriesPerOrg: parseBound(MEMORY_BOUNDS[1], env[MEMORY_BOUNDS[1]], DEFAULT_MAX_DELIVERIES_PER_ORG),
    };
  }
  // Set for another storage, a bound would silently bound nothing.
  const misplaced = MEMORY_BOUNDS.find((name) => env[name]?.trim());
  if (misplaced && ['pglite', 'postgres'].includes(kind)) {
    throw new ConfigError(
      `${misplaced} applies only to AGENT_PLATFORM_STORAGE=memory (this server stores in ${kind}): unset it, or set AGENT_PLATFORM_STORAGE=memory`,
    );
  }
  if (kind === 'pglite') return { kind, dataDir: path.resolve(launchDirectory(env), env.AGENT_PLATFORM_DATA_DIR?.trim() || DEFAULT_DATA_DIR) };
  if (kind === 'postgres') {
    const url = env.DATABASE_URL?.trim();
    if (!url) throw new ConfigError('AGENT_PLATFORM_STORAGE=postgres needs DATABASE_URL (postgres://user:password@host:5432/db)');
    if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
    return { kind, url };
  }
  throw new ConfigError(`AGENT_PLATFORM_STORAGE must be "pglite", "postgres" or "memory", got "${kind}"`);
}

function parseExecutor(value: string | undefined): boolean {
  if (!value?.trim() || value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError(`AGENT_PLATFORM_EXECUTOR must be "on" or "off", got "${value}"`);
}

function parseLeaseSeconds(value: string | undefined): number {
  if (!value?.trim()) return 30_000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > 3600)
    throw new ConfigError(`AGENT_PLATFORM_RUN_LEASE_SECONDS must be a number from 1 to 3600, got "${value}"`);
  return Math.round(seconds * 1000);
}

/**
 * Default `AGENT_PLATFORM_SHUTDOWN_GRACE_MS`: 5 s, so the grace, the hand-back of the runs still
 * executing and closing all fit within the 10 s that `docker stop` (and Compose) wait before
 * SIGKILL, and well within Kubernetes' 30 s `terminationGracePeriodSeconds`.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

function parseShutdownGrace(value: string | undefined): number {
  const text = value?.trim();
  if (!text) return DEFAULT_SHUTDOWN_GRACE_MS;
  const ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms > 3_600_000)
    throw new ConfigError(`AGENT_PLATFORM_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to 3600000, got "${value}"`);
  return ms;
}

/** A positive integer from the environment, or its default when unset. */
function parseCount(name: string, value: string | undefined, fallback: number): number {
  if (!value?.trim()) return fallback;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 10_000) throw new ConfigError(`${name} must be an integer from 1 to 10000, got "${value}"`);
  return count;
}

/** `AGENT_PLATFORM_METRICS_PORT`: a port (0: any free one, said in the log), only with metrics on. */
function parseMetricsPort(value: string | undefined, metrics: boolean): number | null {
  const text = value?.trim();
  if (!text) return null;
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) throw new ConfigError(`AGENT_PLATFORM_METRICS_PORT must be an integer from 0 to 65535, got "${value}"`);
  if (!metrics) throw new ConfigError('AGENT_PLATFORM_METRICS_PORT is set but AGENT_PLATFORM_METRICS=off: unset one of them');
  return port;
}

/** Whether an OTLP endpoint is set (an http(s) URL), unless `OTEL_SDK_DISABLED=true` turns the SDK off. */
function parseOtlpTraces(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  let enabled = false;
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const) {
    const url = env[name]?.trim();
    if (!url) continue;
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new ConfigError(`${name} must be an http(s) URL (the OTLP/HTTP endpoint, e.g. http://collector:4318), got "${url.slice(0, 100)}"`);
    enabled = true;
  }
  return enabled;
}

export function loadConfig(env: Env = process.env): ServerConfig {
  const port = parsePort(env.PORT);
  const storage = parseStorage(env);
  const secretKey = parseSecretKey(env.AGENT_PLATFORM_SECRET_KEY);
  if (storage.kind === 'postgres' && !secretKey) {
    // Every process sharing the database must open the same secrets: a per-process key would not.
    throw new ConfigError('AGENT_PLATFORM_SECRET_KEY is required with DATABASE_URL, the same in every process (openssl rand -base64 32)');
  }
  const metrics = parseSwitch('AGENT_PLATFORM_METRICS', env.AGENT_PLATFORM_METRICS, true);
  const sandbox = parseSandbox(env.AGENT_PLATFORM_SANDBOX);
  const containment = parseContainment(env, sandbox, (message) => new ConfigError(message));
  return {
    port,
    host: env.HOST || '127.0.0.1',
    publicUrl: parsePublicUrl(env.AGENT_PLATFORM_PUBLIC_URL, port),
    seededKeys: parseSeededKeys(env.AGENT_PLATFORM_API_KEYS),
    seededKeysSet: env.AGENT_PLATFORM_API_KEYS !== undefined,
    secretKey,
    storage,
    runLeaseMs: parseLeaseSeconds(env.AGENT_PLATFORM_RUN_LEASE_SECONDS),
    shutdownGraceMs: parseShutdownGrace(env.AGENT_PLATFORM_SHUTDOWN_GRACE_MS),
    runConcurrency: parseCount('AGENT_PLATFORM_RUN_CONCURRENCY', env.AGENT_PLATFORM_RUN_CONCURRENCY, 4),
    runsPerOrg: parseCount('AGENT_PLATFORM_RUNS_PER_ORG', env.AGENT_PLATFORM_RUNS_PER_ORG, 2),
    runsMax: parseCount('AGENT_PLATFORM_RUNS_MAX', env.AGENT_PLATFORM_RUNS_MAX, Infinity),
    executor: parseExecutor(env.AGENT_PLATFORM_EXECUTOR),
    logLevel: env.LOG_LEVEL || 'info',
    githubWebhookSecrets: parseGithubSecrets(env.AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET),
    githubLinks: parseGithubLinks(env.AGENT_PLATFORM_GITHUB_LINKS),
    sandbox,
    dockerImages: parseDockerImages(env.AGENT_PLATFORM_DOCKER_IMAGES),
    sandboxAllowedImages: parseAllowedImages(env.AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES, sandbox),
    dockerHosts: parseDockerHosts(env.AGENT_PLATFORM_DOCKER_HOSTS, sandbox, (message) => new ConfigError(message)),
    containment,
    dockerWarmPool: parseWarmPool(env.AGENT_PLATFORM_DOCKER_WARM_POOL, sandbox, containment, (message) => new ConfigError(message)),
    agentCommand: env.AGENT_PLATFORM_AGENT_COMMAND?.trim() || null,
    builtInAgent: parseSwitch('AGENT_PLATFORM_BUILTIN_AGENT', env.AGENT_PLATFORM_BUILTIN_AGENT, true),
    confirmationThreshold: parseConfirmationThreshold(env.AGENT_PLATFORM_CONFIRMATION_THRESHOLD),
    searchBaseUrl: parseSearchBaseUrl(env.AGENT_PLATFORM_SEARCH_BASE_URL),
    outboundAllowPrivate: parseSwitch('AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE', env.AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE, false),
    metrics,
    metricsPort: parseMetricsPort(env.AGENT_PLATFORM_METRICS_PORT, metrics),
    otlpTraces: parseOtlpTraces(env),
    oidc: parseOidcConfig(env),
  };
}
