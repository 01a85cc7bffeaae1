/**
 * A warm pool: containers started ahead of time per spec, each handed out once, at a start that
 * a pooled container can serve (see docker-runtime.ts), and replaced in the background.
 *
 * - A pooled container is what a cold start of its spec would create at resource factor 1, with
 *   no start environment, bound to this process while idle (warm-pool-container.ts says how a
 *   claim makes it the sandbox's). An idle one whose process dies is removed by the engine; one
 *   left `created` or stopped is swept like a bound sandbox's leftovers.
 * - A claim is a rename to the sandbox's name; it is never undone: a claimed container is the
 *   sandbox's until it is deleted, and the pool never sees it again.
 * - Refilling runs per spec, one container at a time, at most {@link MAX_CONCURRENT_CREATES} in
 *   all; a failure is logged and tried again after a backoff (1 s, doubling, at most a minute).
 *   It stops at `close()`, which removes the idle containers.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { noopLogger, PlatformError, validationError, type Logger, type SandboxLimits, type StartSandboxInput } from '@agent-platform/core';
import { sweepUnboundLeftovers } from './bound-process.js';
import { dockerMessage, isConflict, isNotFound } from './docker-errors.js';
import type { ResolvedSpec } from './docker-specs.js';
import { hardenedHostConfig } from './hardening.js';
import { SANDBOX_ID_LABEL } from './labels.js';
import { POOL_LABEL, readStartEnv, sweepStartEnvs, writeStartEnv } from './warm-pool-container.js';

export { POOL_LABEL, claimedAs, poolEntrypoint } from './warm-pool-container.js';

/** Containers being created for pools at once: the engine serializes much of it anyway. */
export const MAX_CONCURRENT_CREATES = 2;
/** Most containers a spec's pool may keep. */
export const MAX_POOL_SIZE = 100;
/** How long a refill waits after a claim. */
export const REFILL_AFTER_CLAIM_MS = 500;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

/** How the runtime creates a pooled container of a spec: the same way as a cold start's. */
export interface PoolPlan {
  /** The create options (labels and `POOL_LABEL` included). */
  options: Dockerode.ContainerCreateOptions;
  create(): Promise<Dockerode.Container>;
  /** After the start: what a cold start does then (the working directory to a non-root user). */
  ready(container: Dockerode.Container): Promise<void>;
}

/** What the pool takes of the runtime's options. */
export interface WarmPoolSettings {
  /** Idle containers to keep, by spec id. */
  warmPool?: Readonly<Record<string, number>>;
  /** Egress for every sandbox: each gets a proxy of its own at its start, so none is pooled. */
  egress?: unknown;
  logger?: Logger;
}

/** The plan of a pooled container of `config` under `key` (its name is the runtime's prefix and key). */
export type PlanPooled = (config: ResolvedSpec['config'], key: string) => Promise<PoolPlan>;

interface ClaimRequest {
  specId: string;
  sandboxId: string;
  name: string;
  bound: boolean;
  /** The start's environment (its `env` and `SESSION_API_KEY`). */
  env: Record<string, string>;
  limits: SandboxLimits;
}

/** How many claims the pool served and missed, and how many containers wait per spec. */
export interface WarmPoolStats {
  claims: number;
  misses: number;
  idle: Record<string, number>;
}

interface Pooled {
  key: string;
  id: string;
  container: Dockerode.Container;
  connection: Duplex;
  hostConfig: Dockerode.HostConfig;
  labels: Record<string, string>;
  claimed: boolean;
}

type Resources = Pick<Dockerode.HostConfig, 'Memory' | 'MemorySwap' | 'NanoCpus' | 'PidsLimit'>;

export class WarmPool {
  private readonly idle = new Map<string, Pooled[]>();
  private readonly filling = new Map<string, Promise<void>>();
  private readonly envs = new Map<string, Promise<Record<string, string>>>();
  private readonly sleepers = new Set<() => void>();
  /** Bound claims' stdin connections: `close()` lets go of them, as of a cold bound sandbox's. */
  private readonly held = new Set<Duplex>();
  private readonly slots: (() => void)[] = [];
  private creating = 0;
  private closed = false;
  private readonly counts = { claims: 0, misses: 0 };

  private readonly sizes: Readonly<Record<string, number>>;
  private readonly logger: Logger;
  private swept: Promise<unknown> | undefined;

  /** Checks the sizes (a spec configured, without egress; an integer) and starts filling, in the background. */
  constructor(
    private readonly docker: Dockerode,
    private readonly configs: readonly ResolvedSpec['config'][],
    settings: WarmPoolSettings,
    private readonly plan: PlanPooled,
  ) {
    this.sizes = settings.warmPool ?? {};
    this.logger = settings.logger ?? noopLogger;
    for (const [specId, size] of Object.entries(this.sizes)) {
      const config = configs.find((candidate) => candidate.id === specId);
      if (!config) throw validationError(['warmPool', specId], `no spec ${JSON.stringify(specId)} is configured`);
      if (config.egress || settings.egress)
        throw validationError(['warmPool', specId], 'a sandbox with egress gets its proxy at its start: it cannot be pooled');
      if (!Number.isInteger(size) || size < 0 || size > MAX_POOL_SIZE)
        throw validationError(['warmPool', specId], `a pool size is an integer from 0 to ${MAX_POOL_SIZE}`);
    }
    this.fill();
  }

  /** Starts filling every spec's pool, in the background. */
  fill(): void {
    for (const specId of Object.keys(this.sizes)) this.refill(specId);
  }

  stats(): WarmPoolStats {
    return { ...this.counts, idle: Object.fromEntries(Object.keys(this.sizes).map((specId) => [specId, this.idleOf(specId).length])) };
  }

  /**
   * Hands a pooled container of the spec to the sandbox: the container as the engine describes it
   * once it runs under the sandbox's name `name`, with its limits and environment; null when the
   * pool had none to give or the start needs what a pooled container lacks (the start goes cold).
   * A name taken meanwhile is a CONFLICT.
   */
  async claim(input: StartSandboxInput, name: string, limits: SandboxLimits): Promise<Dockerode.ContainerInspectInfo | null> {
    if (!this.sizes[input.specId] || this.closed || input.egressAllow?.length) return null;
    const env = { ...input.env, ...(input.sessionApiKey ? { SESSION_API_KEY: input.sessionApiKey } : {}) };
    const request: ClaimRequest = { specId: input.specId, sandboxId: input.sandboxId, name, bound: input.boundToProcess === true, env, limits };
    const queue = this.idleOf(request.specId);
    for (let entry = queue.shift(); entry && !this.closed; entry = queue.shift()) {
      try {
        await entry.container.rename({ name: request.name });
      } catch (error) {
        if (isConflict(error) && /name/i.test(dockerMessage(error))) {
          queue.unshift(entry);
          throw new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(request.sandboxId)} already exists`, { cause: error });
        }
        this.discard(entry); // gone (its process, the engine) or broken: the next one
        continue;
      }
      // The sandbox's now, whatever follows: a failure removes it and the start goes cold.
      entry.claimed = true;
      let info: Dockerode.ContainerInspectInfo;
      try {
        info = await this.apply(entry, request);
      } catch (error) {
        this.logger.warn({ specId: request.specId, error: dockerMessage(error) }, 'warm pool: a claimed container could not be set up; starting cold');
        await this.remove(entry);
        break;
      }
      this.counts.claims++;
      // The claimed sandbox's first command goes first: a container being created meanwhile
      // (the engine copying an image, on the same cores) would slow exactly what the pool is for.
      setTimeout(() => this.refill(request.specId), REFILL_AFTER_CLAIM_MS).unref();
      return info;
    }
    this.counts.misses++;
    this.refill(request.specId);
    return null;
  }

  /** The start's environment of a claimed container (none for a container started cold). */
  startEnv(info: Dockerode.ContainerInspectInfo): Promise<Record<string, string>> {
    if (info.Config.Labels?.[POOL_LABEL] !== 'true') return Promise.resolve({});
    let env = this.envs.get(info.Id);
    if (!env) {
      env = readStartEnv(this.docker, info);
      env.catch(() => this.envs.delete(info.Id));
      this.envs.set(info.Id, env);
    }
    return env;
  }

  /** Forgets what it remembers of a removed container. */
  forget(containerId: string): void {
    this.envs.delete(containerId);
  }

  /** Stops refilling and removes the idle containers. Claimed ones are their sandboxes'. */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.sleepers) wake();
    for (const slot of this.slots.splice(0)) slot();
    await Promise.allSettled([...this.filling.values()]);
    const idle = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(idle.map((entry) => this.remove(entry)));
    for (const connection of this.held) connection.destroy();
    this.held.clear();
  }

  /** Limits, environment and life of the claimed container, at once (each is a round trip); its description. */
  private async apply(entry: Pooled, request: ClaimRequest): Promise<Dockerode.ContainerInspectInfo> {
    const wanted = resources(request.limits);
    const labels = { ...entry.labels, [SANDBOX_ID_LABEL]: request.sandboxId };
    const [info] = await Promise.all([
      entry.container.inspect(),
      JSON.stringify(wanted) === JSON.stringify(hostResources(entry.hostConfig)) ? undefined : entry.container.update(wanted),
      Object.keys(request.env).length > 0 ? writeStartEnv(this.docker, request.name, labels, request.env) : undefined,
      // Bound: it keeps this process's stdin (it dies with this process, as a bound sandbox does).
      request.bound ? undefined : keep(entry.connection),
    ]);
    this.envs.set(entry.id, Promise.resolve({ ...request.env }));
    if (request.bound) {
      this.held.add(entry.connection);
      entry.connection.once('close', () => this.held.delete(entry.connection));
    }
    return info;
  }

  private idleOf(specId: string): Pooled[] {
    const queue = this.idle.get(specId) ?? [];
    this.idle.set(specId, queue);
    return queue;
  }

  private refill(specId: string): void {
    if (this.closed || this.filling.has(specId) || this.idleOf(specId).length >= (this.sizes[specId] ?? 0)) return;
    const loop = this.fillLoop(specId).finally(() => this.filling.delete(specId));
    this.filling.set(specId, loop);
  }

  private async fillLoop(specId: string): Promise<void> {
    let failures = 0;
    while (!this.closed && this.idleOf(specId).length < (this.sizes[specId] ?? 0)) {
      try {
        // Leftovers of a dead process's pool (left created or stopped), as a bound sandbox's.
        this.swept ??= Promise.all([sweepUnboundLeftovers(this.docker), sweepStartEnvs(this.docker)]).catch(() => undefined);
        await this.swept;
        const entry = await this.withSlot(() => this.make(specId));
        if (!entry) return;
        if (this.closed) {
          await this.remove(entry);
          return;
        }
        this.idleOf(specId).push(entry);
        failures = 0;
      } catch (error) {
        failures++;
        const delayMs = Math.min(FIRST_BACKOFF_MS * 2 ** (failures - 1), MAX_BACKOFF_MS);
        this.logger.warn({ specId, error: dockerMessage(error), retryInMs: delayMs }, 'warm pool: a container did not start; trying again');
        await this.sleep(delayMs);
      }
    }
  }

  private async make(specId: string): Promise<Pooled> {
    const key = `_pool-${randomBytes(6).toString('hex')}`;
    const config = this.configs.find((candidate) => candidate.id === specId) as ResolvedSpec['config'];
    const plan = await this.plan(config, key);
    const container = await plan.create();
    let connection: Duplex | undefined;
    try {
      // Attached before the start, so its main process never runs without the connection.
      connection = (await container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true })) as Duplex;
      const entry: Pooled = {
        key,
        id: container.id,
        container,
        connection,
        hostConfig: plan.options.HostConfig ?? {},
        labels: plan.options.Labels ?? {},
        claimed: false,
      };
      connection.on('error', () => undefined);
      connection.on('close', () => this.lost(specId, entry));
      connection.resume();
      // Like a bound sandbox's: it does not keep this process alive.
      (connection as Duplex & { unref?: () => void }).unref?.();
      await container.start();
      await plan.ready(container);
      return entry;
    } catch (error) {
      connection?.destroy();
      await container.remove({ force: true, v: true }).catch(() => undefined);
      throw error;
    }
  }

  /** An idle container's connection closed: the container is gone or going; another replaces it. */
  private lost(specId: string, entry: Pooled): void {
    if (entry.claimed) return;
    const queue = this.idleOf(specId);
    const at = queue.indexOf(entry);
    if (at < 0) return;
    queue.splice(at, 1);
    this.discard(entry);
    this.refill(specId);
  }

  private discard(entry: Pooled): void {
    void this.remove(entry);
  }

  private async remove(entry: Pooled): Promise<void> {
    entry.connection.destroy();
    this.envs.delete(entry.id);
    await entry.container.remove({ force: true, v: true }).catch((error: unknown) => {
      // Gone already, or the engine removing it (AutoRemove) meanwhile.
      if (!isNotFound(error) && !isConflict(error)) this.logger.warn({ error: dockerMessage(error) }, 'warm pool: a container could not be removed');
    });
  }

  /** Runs `make` when fewer than MAX_CONCURRENT_CREATES run; undefined once closed. */
  private async withSlot<T>(make: () => Promise<T>): Promise<T | undefined> {
    while (this.creating >= MAX_CONCURRENT_CREATES) {
      await new Promise<void>((resolve) => this.slots.push(resolve));
      if (this.closed) return undefined;
    }
    this.creating++;
    try {
      return await make();
    } finally {
      this.creating--;
      this.slots.shift()?.();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.sleepers.add(wake);
    });
  }
}

/** The limits as the engine's resource fields, the way a cold start sets them. */
function resources(limits: SandboxLimits): Resources {
  return hostResources(hardenedHostConfig({ limits, capabilities: [] }));
}

function hostResources(host: Dockerode.HostConfig): Resources {
  return { Memory: host.Memory ?? 0, MemorySwap: host.MemorySwap ?? 0, NanoCpus: host.NanoCpus ?? 0, PidsLimit: host.PidsLimit ?? 0 };
}

/** Tells a pooled container's main process to stay without this process, and lets go of its stdin. */
async function keep(connection: Duplex): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    connection.once('error', reject);
    connection.end('keep\n', () => resolve());
  });
}
