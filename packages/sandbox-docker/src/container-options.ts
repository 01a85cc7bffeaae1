/**
 * The engine's create request for a sandbox container: the spec's image, command, user and
 * ports, the sandbox's environment and labels, its working-directory volume, and the hardening
 * every sandbox gets.
 * @module
 */
import type Dockerode from 'dockerode';
import { boundContainerOptions } from './bound-process.js';
import type { ResolvedSpec } from './docker-specs.js';
import { hardenedHostConfig, type HardeningOptions } from './hardening.js';

/** Keeps a container alive without a server of its own; exits on `docker stop`. */
const KEEP_ALIVE = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";

export interface ContainerPlan {
  /** The container's name, also its working-directory volume's (unless bound). */
  name: string;
  config: ResolvedSpec['config'];
  env: Record<string, string>;
  labels: Record<string, string>;
  /** Bound to this process (`boundToProcess`): removed by the engine when its stdin ends. */
  bound: boolean;
  /** The working-directory volume's driver options (a bound sandbox's is created with the container). */
  volumeOptions: Record<string, string>;
  hardening: HardeningOptions;
}

export function containerOptions({ name, config, env, labels, bound, volumeOptions, hardening }: ContainerPlan): Dockerode.ContainerCreateOptions {
  const command = config.command ? { Entrypoint: config.command } : { Entrypoint: ['/bin/sh', '-c'], Cmd: [KEEP_ALIVE] };
  // A bound sandbox's volume is anonymous: the engine removes it with the container.
  const volume: Dockerode.MountSettings = bound
    ? {
        Type: 'volume',
        Source: '',
        Target: config.workingDir,
        VolumeOptions: { NoCopy: false, Labels: labels, DriverConfig: { Name: 'local', Options: volumeOptions } },
      }
    : { Type: 'volume', Source: name, Target: config.workingDir };
  return {
    name,
    Image: config.image,
    ...(bound ? boundContainerOptions(config.command) : command),
    ...(config.user ? { User: config.user } : {}),
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    WorkingDir: config.workingDir,
    Labels: labels,
    ExposedPorts: Object.fromEntries((config.exposedPorts ?? []).map(({ port }) => [`${port}/tcp`, {}])),
    HostConfig: {
      Mounts: [volume],
      PortBindings: Object.fromEntries((config.exposedPorts ?? []).map(({ port }) => [`${port}/tcp`, [{ HostIp: '', HostPort: '' }]])),
      ...hardenedHostConfig(hardening),
      ...(bound ? { AutoRemove: true } : {}),
    },
  };
}
