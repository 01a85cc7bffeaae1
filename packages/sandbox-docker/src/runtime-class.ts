/**
 * Runtime classes: the OCI runtime a sandbox's container runs under (`HostConfig.Runtime`), such
 * as gVisor's `runsc`, host-wide or per spec. The engine knows its runtimes (`docker info`
 * lists them); a class it does not know is refused before anything is created, naming what it has.
 * @module
 */
import type Dockerode from 'dockerode';
import { validationError } from '@agent-platform/core';
import { engineCall } from './container-state.js';
import type { ResolvedSpec } from './docker-specs.js';
import { withEgress, type EgressContainerPlan } from './egress/container.js';
import { SandboxEgress, type EgressEvent, type EgressOptions } from './egress/sandbox-egress.js';

/** The Docker runtime's containment options (see `DockerRuntimeOptions`). */
export interface ContainmentOptions {
  /**
   * The OCI runtime of sandboxes whose spec names none, one the engine has registered: `runsc`
   * for gVisor (recommended for untrusted code; no network of its own: give it `egress`). An
   * unknown one is refused at start, naming the engine's. Default: the engine's default runtime.
   */
  runtimeClass?: string;
  /**
   * No network of its own for every sandbox, only the platform's proxy to the hosts listed (a
   * spec's `egress` turns it on for that spec alone). Default: off.
   */
  egress?: EgressOptions;
  /** Each connection a sandbox's egress proxy let through or refused (with the reason). */
  onEgress?: (event: EgressEvent) => void;
}

/** A sandbox's containment, decided at its start. */
export interface ContainmentPlan {
  runtime: RuntimeClass | undefined;
  egress: EgressContainerPlan | undefined;
}

/** The runtime class and egress of one Docker runtime's sandboxes. */
export class Containment {
  private readonly runtimes: EngineRuntimes;
  private readonly egress: SandboxEgress;

  constructor(
    docker: Dockerode,
    private readonly options: ContainmentOptions,
  ) {
    checkRuntimeClassName(options.runtimeClass, ['runtimeClass']);
    this.runtimes = new EngineRuntimes(docker);
    this.egress = new SandboxEgress(options.egress, options.onEgress);
  }

  /** Checks the runtime class and serves the sandbox's egress proxy, when it has one. */
  async prepare(sandboxId: string, config: ResolvedSpec['config'], egressAllow: readonly string[] | undefined): Promise<ContainmentPlan> {
    const runtime = await this.runtimes.forSpec(config, this.options.runtimeClass);
    return { runtime, egress: await this.egress.prepare(sandboxId, config.egress, egressAllow) };
  }

  /** Serves the proxy of a sandbox whose process is gone (best effort: a failure leaves its egress down). */
  adopt(sandboxId: string, labels: Record<string, string> | undefined): Promise<void> {
    return this.egress.adopt(sandboxId, labels).catch(() => undefined);
  }

  release(sandboxId: string): Promise<void> {
    return this.egress.release(sandboxId).catch(() => undefined);
  }

  closeAll(): void {
    this.egress.closeAll();
  }
}

/** Runtime class names the engine accepts in its configuration. */
const RUNTIME_CLASS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** Checks a configured runtime class's form (the engine checks that it exists, at start). */
export function checkRuntimeClassName(value: string | undefined, loc: (string | number)[]): void {
  if (value !== undefined && !RUNTIME_CLASS_PATTERN.test(value)) {
    throw validationError(loc, 'a runtime class is the name of a runtime registered with the engine, like `runsc`');
  }
}

/**
 * Whether a runtime is gVisor: its name, or the path the engine runs it from, is `runsc`. gVisor
 * here runs with a network stack of its own turned off (`--network=none`: it refuses to start with
 * one in the root network namespace), so its sandboxes get Docker's `none` network too.
 */
export function isGvisor(runtimeClass: string | undefined, path: string | undefined): boolean {
  return runtimeClass === 'runsc' || /(^|\/)runsc$/.test(path ?? '');
}

export interface RuntimeClass {
  name: string;
  gvisor: boolean;
}

/**
 * A sandbox's create options with its containment: egress through the proxy (no network, the
 * bridge), and the runtime class (gVisor: no network either).
 */
export function contain(options: Dockerode.ContainerCreateOptions, { runtime, egress }: ContainmentPlan): Dockerode.ContainerCreateOptions {
  const withProxy = egress ? withEgress(options, egress) : options;
  if (!runtime) return withProxy;
  return { ...withProxy, HostConfig: { ...withProxy.HostConfig, Runtime: runtime.name, ...(runtime.gvisor ? { NetworkMode: 'none' } : {}) } };
}

/** The engine's runtimes by name (`docker info`'s `Runtimes`), asked once and kept. */
export class EngineRuntimes {
  private known: Promise<Record<string, { path?: string }>> | undefined;

  constructor(private readonly docker: Dockerode) {}

  /**
   * The runtime class, checked against the engine's list (asked again when the class is not on
   * the list kept: it may have been registered since), with the path the engine runs it from.
   * Unknown: VALIDATION_FAILED naming the engine's runtimes and how to register one.
   */
  /**
   * The runtime class of a spec's sandboxes (its own, else the runtime's), checked; undefined:
   * the engine's default. A gVisor spec that names a network or publishes ports is refused: it has
   * no network.
   */
  async forSpec(config: ResolvedSpec['config'], fallback: string | undefined): Promise<RuntimeClass | undefined> {
    const name = config.runtimeClass ?? fallback;
    if (!name) return undefined;
    const runtime = await engineCall(() => this.resolve(name));
    if (runtime.gvisor && config.exposedPorts?.length) {
      throw validationError(['runtimeClass'], `gVisor (${name}) sandboxes have no network: spec ${JSON.stringify(config.id)} cannot publish ports`);
    }
    if (runtime.gvisor && config.network !== undefined && config.network !== 'none') {
      throw validationError(
        ['runtimeClass'],
        `gVisor (${name}) sandboxes have no network: spec ${JSON.stringify(config.id)} cannot join ${JSON.stringify(config.network)}`,
      );
    }
    return runtime;
  }

  async resolve(runtimeClass: string): Promise<RuntimeClass> {
    let runtimes = await this.list();
    if (!runtimes[runtimeClass]) {
      this.known = undefined;
      runtimes = await this.list();
    }
    const runtime = runtimes[runtimeClass];
    if (!runtime) {
      throw validationError(
        ['runtimeClass'],
        `the Docker engine has no runtime "${runtimeClass}" (it has: ${Object.keys(runtimes).sort().join(', ') || 'none listed'}); ` +
          'register it under "runtimes" in /etc/docker/daemon.json and reload the engine (kill -HUP the dockerd process)',
      );
    }
    return { name: runtimeClass, gvisor: isGvisor(runtimeClass, runtime.path) };
  }

  private list(): Promise<Record<string, { path?: string }>> {
    this.known ??= this.docker.info().then((info: { Runtimes?: Record<string, { path?: string }> }) => info.Runtimes ?? {});
    // A failed ask is asked again next time, not remembered.
    this.known.catch(() => {
      this.known = undefined;
    });
    return this.known;
  }
}
