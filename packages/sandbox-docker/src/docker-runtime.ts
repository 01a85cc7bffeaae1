/**
 * The Docker `SandboxRuntime`: a container per sandbox, over the Docker Engine API.
 * @module
 */
import { randomBytes } from 'node:crypto';
import Dockerode from 'dockerode';
import { PlatformError, noopLogger, notFound, validationError } from '@agent-platform/core';
import type { ExecEvent, ExecInput, Logger, RuntimeSandbox, SandboxLimits, SandboxRuntime, SandboxSpec, StartSandboxInput } from '@agent-platform/core';
import { filesArchive, ownedDirectoryArchive } from './archive.js';
import { BoundConnections, sweepUnboundLeftovers } from './bound-process.js';
import { containerOptions } from './container-options.js';
import { resolveOwnership, type Ownership } from './container-user.js';
import { containerInfo, engineCall, ignoreConflict, ignoreNotModified, statusOf } from './container-state.js';
import { dockerMessage, isConflict, isNotFound } from './docker-errors.js';
import { resolveEngines, type DockerEngine } from './engine-hosts.js';
import { DEFAULT_PLACEMENT_TIMEOUT_MS, DockerEnginesRuntime } from './engines.js';
import { DockerExec } from './docker-exec.js';
import { describeSpec, exposedUrls, normalizeSpecs, type DockerSandboxSpec, type ResolvedSpec } from './docker-specs.js';
import { DEFAULT_CAPABILITIES, DiskQuota, type HardeningOptions } from './hardening.js';
import { allowedImages, ensureImage, imageInfo, withOwnerImage } from './images.js';
import { SPEC_ID_LABEL, WORKING_DIR_LABEL, ownedBy, sandboxLabels } from './labels.js';
import { limitNote, stoppedSandboxNote } from './limit-notes.js';
import { Containment, contain, type ContainmentOptions } from './runtime-class.js';
import { EVENT_LOOP_TURN_MS, outputPieces } from './output-pieces.js';
import { checkStdin } from '@agent-platform/core/adapter-kit';
import { StartLimits } from './sandbox-limits.js';
import { POOL_LABEL, WarmPool, claimedAs, poolEntrypoint, type PoolPlan } from './warm-pool.js';

export const RUNTIME_NAME = 'docker';
export { DEFAULT_LIMITS } from './sandbox-limits.js';
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const SANDBOX_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

/** Containment (`runtimeClass`, `egress`, `onEgress`): see {@link ContainmentOptions}. */
export interface DockerRuntimeOptions extends ContainmentOptions {
  /** The images offered as specs; the first is the default. */
  images: readonly (string | DockerSandboxSpec)[];
  /**
   * The images owners may run their sandboxes from (their `sandbox_runtime_container_image` or
   * `sandbox_base_container_image`), besides the specs' own images, which are always allowed:
   * exact references (`ghcr.io/acme/sandbox:1.4`), or patterns ending in `*` that match by prefix
   * (`ghcr.io/acme/sandbox:*`: any tag of that repository). An owner's image replaces the spec's
   * image only: the spec's working directory, command, user, network and ports stay. It is pulled
   * like a spec's (see `pull`). Default: none beyond the specs' images.
   */
  ownerImages?: readonly string[];
  /** The engine client. Default: `new Dockerode()`, which follows `DOCKER_HOST` or uses the local socket. */
  docker?: Dockerode;
  /**
   * Several engines to place sandboxes on (replacing `docker`): clients with names, or addresses
   * (`unix:///run/docker.sock`, `tcp://10.0.0.5:2375`, optionally `name=` in front). A new
   * sandbox goes to the reachable engine with the fewest of this platform's sandboxes; any process
   * finds a sandbox on any engine; a lost engine's sandboxes read ERROR with `lost` (see the
   * "Several Docker engines" section of docs/agents-and-sandboxes.md). Default: `docker` alone.
   */
  engines?: readonly (DockerEngine | string)[];
  /** With `engines`: how long placement waits for an engine's answer before skipping it. Default 5 s. */
  placementTimeoutMs?: number;
  /** Limits of each sandbox at resource factor 1 (scaled by `StartSandboxInput.resourceFactor`). Default {@link DEFAULT_LIMITS}. */
  limits?: SandboxLimits;
  /** Container and volume names are this prefix and the sandbox id. Default `agent-platform-`. */
  namePrefix?: string;
  /** Timeout of a command whose `ExecInput` sets none. Default: none. */
  defaultTimeoutMs?: number;
  /** Output kept per stream of a command whose `ExecInput` sets none. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Host name in `exposed_urls`. Default `127.0.0.1`. */
  publicHost?: string;
  /** Pull an image the engine does not have when a sandbox starts from it. Default true. */
  pull?: boolean;
  /** A network to attach sandboxes to (a spec's own `network` wins). Default: the engine's default bridge. */
  network?: string;
  /**
   * `/tmp` in each sandbox as a tmpfs of this many bytes (its pages count toward the memory
   * limit; it is emptied when the container stops). Caps what a command can write there without
   * touching the host's disk. Default: none (`/tmp` is part of the container's writable layer).
   */
  tmpBytes?: number;
  /**
   * A quota on each container's writable layer (`StorageOpt: { size }`) and, as much again, on
   * its working-directory volume (the local driver's `size`), each where the engine can enforce
   * it (the layer: overlay2 on xfs mounted with `pquota`, devicemapper, btrfs, zfs; the volume:
   * a Docker root on xfs with `pquota`): found out on the first start; elsewhere sandboxes run
   * without (a debug line says so). Default: none.
   */
  diskBytes?: number;
  /**
   * The Linux capabilities sandboxes keep; every other one is dropped. Default
   * {@link DEFAULT_CAPABILITIES}.
   */
  capabilities?: readonly string[];
  /** Where the runtime writes its few lines (a disk quota the engine cannot enforce). Default: nowhere. */
  logger?: Logger;
  /** Containers kept started ahead of time per spec id (`{ [specId]: 4 }`), each handed out once (warm-pool.ts). Default: none. */
  warmPool?: Readonly<Record<string, number>>;
}

/**
 * Builds the Docker {@link SandboxRuntime}. Each sandbox is a container of a configured image
 * with a volume of its own at the spec's working directory, and:
 *
 * - labels (`dev.agent-platform.*`) on the container and volume: the runtime acts only on
 *   containers that carry its labels and the sandbox id asked for, so it never touches another's;
 * - memory (swap included), CPU and pids limits ({@link DEFAULT_LIMITS} × the owner's resource
 *   factor, CPUs capped at the engine's count), unless the start gives `limits`;
 * - hardening: `no-new-privileges`, every capability dropped but {@link DEFAULT_CAPABILITIES},
 *   the spec's `user` (else the image's), the spec's `network` (`none`: no network), and when
 *   configured a size-limited tmpfs `/tmp` and a disk quota (where the engine supports one);
 * - with `boundToProcess`, a life bound to this process: its main process waits on a stdin the
 *   runtime holds open, so when this process dies (SIGKILL included) the container stops and the
 *   engine removes it;
 * - `SESSION_API_KEY` in its environment when the start gives one;
 * - the owner's image instead of the spec's when the start asks for one of
 *   {@link DockerRuntimeOptions.ownerImages} or the specs' images (any other is refused with
 *   VALIDATION_FAILED listing them, before anything is created); `inspect` says which image runs;
 * - no owner's credential (`takesOwnerCredential` is false: the platform hands it none);
 * - status from the engine: running → RUNNING, paused or exited → PAUSED, created or restarting
 *   → STARTING, gone → MISSING, anything else → ERROR;
 * - pause and resume by `docker pause` / `unpause`; resume also restarts an exited container;
 * - delete removes the container and its volume.
 *
 * Commands run through `docker exec` as `sh -c` in the working directory; a timeout, an abort or
 * a consumer that stops early kills the command's whole process group (by a second exec, which
 * needs `/tmp` — or `/dev/shm` when `/tmp` is full — and `kill` in the image; while paused, the
 * kill runs right after resume). Output reaches the consumer in pieces of at most 64 lines, with
 * a turn for the event loop between them; past `maxOutputBytes` it is read at most 16 MiB/s.
 * `ExecInput.stdin`, when given, is attached and written to the exec's hijacked connection, whose
 * write side is half-closed at its end; the iterable's `return()` is called once the command's
 * stream ends or it is killed. A command that exits non-zero after running into the memory or
 * pids limit gets a last stderr line saying so (`sandbox: killed: out of memory …`). Files
 * are written through the Engine's archive endpoint, so images need no tools for them (owned by
 * the sandbox's user when it is not root).
 * Sandboxes outlive the runtime object: a new runtime on the same engine finds them by label;
 * `close()` removes only those this instance created.
 *
 * @example
 * ```ts
 * const runtime = createDockerRuntime({ images: ['ghcr.io/acme/agent-sandbox:1.4'] });
 * const sandbox = await runtime.start({ sandboxId: 'sbx-1', specId: 'ghcr.io/acme/agent-sandbox:1.4' });
 * ```
 */
export function createDockerRuntime(options: DockerRuntimeOptions): SandboxRuntime {
  if (!options.engines) return new DockerRuntime(options);
  const engines = resolveEngines(options.engines).map((engine) => ({
    ...engine,
    runtime: new DockerRuntime({ ...options, engines: undefined, docker: engine.docker }),
  }));
  const placement = { namePrefix: options.namePrefix ?? 'agent-platform-', placementTimeoutMs: options.placementTimeoutMs ?? DEFAULT_PLACEMENT_TIMEOUT_MS };
  return new DockerEnginesRuntime(engines, { runtimeName: RUNTIME_NAME, ...placement, ...(options.logger ? { logger: options.logger } : {}) });
}

class DockerRuntime implements SandboxRuntime {
  readonly name = RUNTIME_NAME;
  /** It runs on the host's engine: no owner's credential to take. */
  readonly takesOwnerCredential = false;
  private readonly docker: Dockerode;
  private readonly configs: ResolvedSpec['config'][];
  /** What `allowedImages()` answers: the specs' images, then the owner images configured. */
  private readonly allowed: string[];
  private readonly instance = randomBytes(8).toString('hex');
  private readonly prefix: string;
  private readonly publicHost: string;
  private readonly created = new Set<string>();
  private readonly execs = new Map<string, Set<DockerExec>>();
  private readonly deferredKills = new Map<string, (() => Promise<void>)[]>();
  private readonly bound = new BoundConnections();
  private readonly owners = new Map<string, Promise<Ownership | null>>();
  private readonly refusedForks = new Map<string, number>();
  private readonly reportedOom = new Map<string, bigint>();
  private readonly diskQuota: DiskQuota;
  private readonly containment: Containment;
  private readonly pool: WarmPool;
  private readonly startLimits: StartLimits;
  private swept: Promise<unknown> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: DockerRuntimeOptions) {
    this.docker = options.docker ?? new Dockerode();
    this.configs = normalizeSpecs(options.images);
    this.allowed = allowedImages(this.configs, options.ownerImages ?? []);
    this.prefix = options.namePrefix ?? 'agent-platform-';
    this.publicHost = options.publicHost ?? '127.0.0.1';
    this.diskQuota = new DiskQuota(options.diskBytes, options.logger ?? noopLogger);
    this.containment = new Containment(this.docker, options);
    this.startLimits = new StartLimits(this.docker, options.limits);
    this.pool = new WarmPool(this.docker, this.configs, options, (config, key) => this.poolPlan(config, key));
  }

  async listSpecs(): Promise<SandboxSpec[]> {
    return Promise.all(this.configs.map(async (config) => describeSpec(config, await this.engine(() => imageInfo(this.docker, config.image)))));
  }

  /** The specs' images and the configured `ownerImages`. */
  async allowedImages(): Promise<string[]> {
    return [...this.allowed];
  }

  async start(input: StartSandboxInput): Promise<RuntimeSandbox> {
    if (this.closed) throw new PlatformError('UNAVAILABLE', 'The Docker runtime is closed');
    if (!SANDBOX_ID_PATTERN.test(input.sandboxId)) throw validationError(['sandboxId'], 'letters, digits, _ . - only (at most 200)');
    const specConfig = this.configs.find((candidate) => candidate.id === input.specId);
    if (!specConfig) throw notFound(`Sandbox spec ${JSON.stringify(input.specId)}`);
    const config = withOwnerImage(specConfig, input.image, this.allowed);
    const name = this.nameOf(input.sandboxId);
    // A claim renames a pooled container to the name: a name taken is a CONFLICT there too.
    const claimed = config.image === specConfig.image && (await this.engine(async () => this.pool.claim(input, name, await this.startLimits.of(input))));
    if (claimed) {
      this.created.add(input.sandboxId);
      return this.inspect(input.sandboxId, claimed);
    }
    if (await this.engine(() => containerInfo(this.docker, name)))
      throw new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(input.sandboxId)} already exists`);

    // Bound sandboxes whose process died without removing them: once per runtime, any may go.
    this.swept ??= sweepUnboundLeftovers(this.docker).catch(() => undefined);
    await this.swept;
    const image = await this.engine(() => ensureImage(this.docker, config.image, this.options.pull !== false));
    const spec = describeSpec(config, image);
    const bound = input.boundToProcess === true;
    const labels = sandboxLabels(input.sandboxId, config.id, config.workingDir, this.instance, bound);
    const limits = await this.startLimits.of(input);
    const env = { ...spec.initial_env, ...input.env, ...(input.sessionApiKey ? { SESSION_API_KEY: input.sessionApiKey } : {}) };
    this.created.add(input.sandboxId);
    try {
      const volumeOptions = await this.engine(() => this.diskQuota.volumeOptions(this.docker, `${this.prefix}quota-probe-${this.instance}`));
      // A bound sandbox's volume is anonymous: the engine removes it with the container.
      if (!bound) await this.engine(() => this.docker.createVolume({ Name: name, Labels: labels, DriverOpts: volumeOptions }));
      const contained = await this.containment.prepare(input.sandboxId, config, input.egressAllow);
      const container = await this.engine(() =>
        this.diskQuota.create(
          this.docker,
          contain(
            containerOptions({
              name,
              config,
              env,
              labels,
              bound,
              volumeOptions,
              hardening: this.hardeningFor(config, limits),
            }),
            contained,
          ),
        ),
      );
      if (bound) await this.engine(() => this.bound.attach(input.sandboxId, container));
      await this.engine(() => container.start());
      // Root (no user, or the image's own root) needs nothing: a fresh volume is root's.
      if (config.user || image.Config?.User) await this.giveWorkingDir(container, config.workingDir);
    } catch (error) {
      await this.remove(input.sandboxId).catch(() => undefined);
      this.created.delete(input.sandboxId);
      if (error instanceof PlatformError && (error.code === 'CONFLICT' || error.code === 'VALIDATION_FAILED')) throw error;
      throw new PlatformError('UNAVAILABLE', `The sandbox did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return this.inspect(input.sandboxId);
  }

  /** `known`: the container as a claim just described it (no second round trip). */
  async inspect(sandboxId: string, known?: Dockerode.ContainerInspectInfo): Promise<RuntimeSandbox> {
    const info = known ?? (await this.owned(sandboxId));
    if (!info) return { id: sandboxId, specId: '', status: 'MISSING', workingDir: '', exposedUrls: [] };
    const specId = info.Config.Labels[SPEC_ID_LABEL] ?? '';
    await this.containment.adopt(sandboxId, info.Config.Labels);
    return {
      id: sandboxId,
      specId,
      status: statusOf(info.State),
      workingDir: info.Config.Labels[WORKING_DIR_LABEL] ?? info.Config.WorkingDir,
      image: info.Config.Image,
      ...(info.HostConfig?.Runtime ? { runtimeClass: info.HostConfig.Runtime } : {}),
      exposedUrls: exposedUrls(
        this.configs.find((config) => config.id === specId),
        info.NetworkSettings?.Ports as Record<string, { HostIp: string; HostPort: string }[] | null>,
        this.publicHost,
      ),
    };
  }

  async pause(sandboxId: string): Promise<void> {
    const info = await this.require(sandboxId);
    if (!info.State.Running || info.State.Paused) return;
    await this.engine(() => this.docker.getContainer(info.Id).pause()).catch((error: unknown) => {
      if (!isConflict(error)) throw error; // already paused meanwhile
    });
  }

  async resume(sandboxId: string): Promise<void> {
    const info = await this.require(sandboxId);
    const container = this.docker.getContainer(info.Id);
    if (info.State.Paused) await this.engine(() => container.unpause()).catch(ignoreConflict);
    else if (!info.State.Running) await this.engine(() => container.start()).catch(ignoreNotModified);
    const kills = this.deferredKills.get(sandboxId) ?? [];
    this.deferredKills.delete(sandboxId);
    await Promise.all(kills.map((kill) => kill().catch(() => undefined)));
  }

  async delete(sandboxId: string): Promise<void> {
    await this.require(sandboxId);
    await this.remove(sandboxId);
  }

  exec(sandboxId: string, input: ExecInput): AsyncIterable<ExecEvent> {
    return { [Symbol.asyncIterator]: () => this.execIterator(sandboxId, input) };
  }

  /** The engine answers `GET /_ping`: UNAVAILABLE when it does not, or after `close()`. */
  async ping(): Promise<void> {
    if (this.closed) throw new PlatformError('UNAVAILABLE', 'The Docker runtime is closed');
    await this.engine(() => this.docker.ping());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      await this.pool.close();
      await Promise.all([...this.created].map((sandboxId) => this.remove(sandboxId).catch(() => undefined)));
      this.bound.releaseAll();
      this.containment.closeAll();
    })();
    await this.closing;
  }

  private hardeningFor(config: ResolvedSpec['config'], limits: SandboxLimits): HardeningOptions {
    return {
      limits,
      capabilities: this.options.capabilities ?? DEFAULT_CAPABILITIES,
      tmpBytes: this.options.tmpBytes,
      network: config.network ?? this.options.network,
    };
  }

  /** A pooled container of a spec: a cold start's at resource factor 1, bound, without a start's env (warm-pool.ts). */
  private async poolPlan(config: ResolvedSpec['config'], key: string): Promise<PoolPlan> {
    const image = await this.engine(() => ensureImage(this.docker, config.image, this.options.pull !== false));
    const labels = { ...sandboxLabels(key, config.id, config.workingDir, this.instance, true), [POOL_LABEL]: 'true' };
    const volumeOptions = await this.engine(() => this.diskQuota.volumeOptions(this.docker, `${this.prefix}quota-probe-${this.instance}`));
    const hardening = this.hardeningFor(config, await this.startLimits.of({}));
    const plan = { name: this.nameOf(key), config, env: describeSpec(config, image).initial_env, labels, bound: true, volumeOptions, hardening };
    const options = { ...contain(containerOptions(plan), await this.containment.prepare(key, config, undefined)), ...poolEntrypoint(config.command) };
    const ready = async (container: Dockerode.Container) => (config.user || image.Config?.User ? this.giveWorkingDir(container, config.workingDir) : undefined);
    return { options, create: () => this.engine(() => this.diskQuota.create(this.docker, options)), ready };
  }

  /** A non-root sandbox user gets the working directory (a fresh volume is root's). */
  private async giveWorkingDir(container: Dockerode.Container, workingDir: string): Promise<void> {
    const info = await this.engine(() => container.inspect());
    const owner = await this.ownerOf(info);
    if (!owner || workingDir === '/') return;
    const archive = await ownedDirectoryArchive(workingDir, owner);
    await this.engine(() => container.putArchive(archive, { path: '/' }));
  }

  /** The numeric owner of files written into the sandbox: null for root. */
  private ownerOf(info: Dockerode.ContainerInspectInfo): Promise<Ownership | null> {
    let owner = this.owners.get(info.Id);
    if (!owner) {
      owner = resolveOwnership(this.docker.getContainer(info.Id), info.Config.User);
      // A failed lookup is tried again next time, not remembered.
      owner.catch(() => this.owners.delete(info.Id));
      this.owners.set(info.Id, owner);
    }
    return owner;
  }

  private async *execIterator(sandboxId: string, input: ExecInput): AsyncGenerator<ExecEvent> {
    checkStdin(input.stdin);
    const info = await this.require(sandboxId);
    if (info.State.Paused || !info.State.Running) {
      throw new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(sandboxId)} is ${statusOf(info.State)}, not RUNNING`);
    }
    if (input.signal?.aborted) {
      yield { type: 'exit', result: { exitCode: null, timedOut: false, cancelled: true, truncated: false } };
      return;
    }
    const container = this.docker.getContainer(info.Id);
    const workingDir = info.Config.Labels[WORKING_DIR_LABEL] ?? info.Config.WorkingDir;
    await this.containment.adopt(sandboxId, info.Config.Labels);
    if (input.files?.length) {
      const owner = await this.ownerOf(info).catch((error: unknown) => {
        throw this.asSandboxError(sandboxId, error);
      });
      const archive = await filesArchive(workingDir, input.files, owner);
      await this.engine(() => container.putArchive(archive, { path: '/' })).catch((error: unknown) => {
        throw this.asSandboxError(sandboxId, error);
      });
    }
    const facts = {
      docker: this.docker,
      container,
      startedAt: Date.now(),
      memoryBytes: info.HostConfig.Memory || undefined,
      pids: info.HostConfig.PidsLimit || undefined,
      refusedForks: this.refusedForks,
      reportedOom: this.reportedOom,
    };
    const run = new DockerExec({
      container,
      execId: randomBytes(8).toString('hex'),
      command: input.command,
      env: { ...(await this.engine(() => this.pool.startEnv(info))), ...input.env },
      workingDir,
      timeoutMs: input.timeoutMs ?? this.options.defaultTimeoutMs,
      maxOutputBytes: input.maxOutputBytes ?? this.options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      signal: input.signal,
      stdin: input.stdin,
      deferKill: (kill) => this.deferredKills.set(sandboxId, [...(this.deferredKills.get(sandboxId) ?? []), kill]),
      explain: (exitCode, stopped) => limitNote(facts, exitCode, stopped),
    });
    await this.engine(() => run.start()).catch(async (error: unknown) => {
      const stopped = isNotFound(error) ? null : await stoppedSandboxNote(facts);
      throw stopped ? new PlatformError('CONFLICT', stopped, { cause: error }) : this.asSandboxError(sandboxId, error);
    });
    const runs = this.execs.get(sandboxId) ?? new Set<DockerExec>();
    this.execs.set(sandboxId, runs);
    runs.add(run);
    try {
      // A consumer that works through each event synchronously (a line at a time, say) must not
      // hold the event loop for a whole flood of output: pieces of it, and a turn for the loop
      // whenever the consumer has had it long enough.
      let turn = performance.now();
      for (let event = await run.next(); event !== undefined; event = await run.next()) {
        for (const piece of outputPieces(event)) {
          if (performance.now() - turn > EVENT_LOOP_TURN_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            turn = performance.now();
          }
          yield piece;
        }
      }
    } finally {
      runs.delete(run);
      // The consumer stopped early: the command goes too.
      if (!run.finished) await run.kill();
    }
  }

  /** Removes the container (force) and its volume; ends the streams of its commands. */
  private async remove(sandboxId: string): Promise<void> {
    for (const run of this.execs.get(sandboxId) ?? []) run.abandon();
    this.execs.delete(sandboxId);
    this.deferredKills.delete(sandboxId);
    const name = this.nameOf(sandboxId);
    const info = await this.owned(sandboxId);
    if (info) {
      await this.engine(() => this.docker.getContainer(info.Id).remove({ force: true, v: true })).catch((error: unknown) => {
        // 409: a bound container the engine is removing already (its stdin closed).
        if (!isNotFound(error) && !isConflict(error)) throw error;
      });
      this.owners.delete(info.Id);
      this.pool.forget(info.Id);
      this.refusedForks.delete(info.Id);
      this.reportedOom.delete(info.Id);
    }
    this.bound.release(sandboxId);
    await this.containment.release(sandboxId);
    const volume = await this.engine(() => this.docker.getVolume(name).inspect()).catch(() => null);
    if (volume && ownedBy(volume.Labels, sandboxId)) {
      await this.engine(() => this.docker.getVolume(name).remove()).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
    this.created.delete(sandboxId);
  }

  /** The container of a sandbox this runtime family made; null when there is none (or it is not ours). */
  private async owned(sandboxId: string): Promise<Dockerode.ContainerInspectInfo | null> {
    if (!SANDBOX_ID_PATTERN.test(sandboxId)) return null;
    const info = await this.engine(() => containerInfo(this.docker, this.nameOf(sandboxId)));
    return info && (ownedBy(info.Config.Labels, sandboxId) || claimedAs(info, this.nameOf(sandboxId))) ? info : null;
  }

  private async require(sandboxId: string): Promise<Dockerode.ContainerInspectInfo> {
    const info = await this.owned(sandboxId);
    if (!info || info.State.Status === 'removing' || info.State.Dead) throw notFound(`Sandbox ${JSON.stringify(sandboxId)}`);
    return info;
  }

  /** Engine errors that are not answers (the socket is gone, the daemon is down) become UNAVAILABLE. */
  private engine<T>(call: () => Promise<T>): Promise<T> {
    return engineCall(call);
  }

  /** An exec refused because the sandbox went away or stopped running in between. */
  private asSandboxError(sandboxId: string, error: unknown): unknown {
    if (isNotFound(error)) return notFound(`Sandbox ${JSON.stringify(sandboxId)}`);
    if (isConflict(error))
      return new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(sandboxId)} is not running: ${dockerMessage(error)}`, { cause: error });
    return error;
  }

  private nameOf(sandboxId: string): string {
    return `${this.prefix}${sandboxId}`;
  }
}
