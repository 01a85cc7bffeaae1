/**
 * Sandbox specs of the Docker runtime: configured images, described by what the engine knows of
 * them (their environment and creation time).
 * @module
 */
import type Dockerode from 'dockerode';
import { validationError, type ExposedUrl, type SandboxSpec } from '@agent-platform/core';
import { parseAllowlist } from './egress/allowlist.js';
import { checkRuntimeClassName } from './runtime-class.js';

/** One image offered as a sandbox spec. */
export interface DockerSandboxSpec {
  /** The image reference, e.g. `ghcr.io/acme/agent-sandbox:1.4`. */
  image: string;
  /** The spec id users start sandboxes from. Default: the image reference. */
  id?: string;
  /** Added to the image's own environment. */
  env?: Record<string, string>;
  /** Where commands run, a volume of the sandbox's own. Default `/workspace`. */
  workingDir?: string;
  /**
   * What the container runs (replacing the image's entrypoint and command); it must keep
   * running. Default: a shell that waits, so an image needs no server of its own.
   */
  command?: string[];
  /** Container ports published on the host and reported as `exposed_urls`. */
  exposedPorts?: { name: string; port: number }[];
  /**
   * The user the container and its commands run as: `name`, `uid`, `name:group` or `uid:gid`.
   * Default: the image's own `USER` (root when the image names none). For a user other than
   * root the runtime gives it the working directory and the files it writes.
   */
  user?: string;
  /**
   * The network sandboxes of this spec join: `none` (no network at all: only loopback), or a
   * Docker network's name. Default: the runtime's `network` option, else the engine's default
   * bridge. `none` cannot be combined with `exposedPorts`.
   */
  network?: string;
  /**
   * The OCI runtime the spec's containers run under, one the engine has registered: `runsc`
   * (gVisor, recommended for untrusted code) or `runc`. A gVisor sandbox has no network of its
   * own (`none`; reach hosts through `egress`), so such a spec cannot publish ports. Default: the
   * runtime's `runtimeClass` option, else the engine's default runtime.
   */
  runtimeClass?: string;
  /**
   * No network of its own, only a proxy the platform serves that lets through the hosts listed
   * here (added to the runtime's `egress.allow` and the start's `egressAllow`): `github.com`,
   * `*.example.com`, an IP address, each with an optional `:port`. Cannot be combined with a
   * `network` other than `none`, nor with `exposedPorts`.
   */
  egress?: { allow?: string[] };
}

export interface ResolvedSpec {
  config: Required<Pick<DockerSandboxSpec, 'image' | 'id' | 'workingDir'>> & DockerSandboxSpec;
  spec: SandboxSpec;
}

export const DEFAULT_WORKING_DIR = '/workspace';

export function normalizeSpecs(images: readonly (string | DockerSandboxSpec)[]): ResolvedSpec['config'][] {
  if (images.length === 0) throw validationError(['images'], 'at least one image is needed');
  const configs = images.map((entry, index) => {
    const config = typeof entry === 'string' ? { image: entry } : entry;
    if (!config.image || /\s/.test(config.image)) throw validationError(['images', index, 'image'], 'an image reference is needed');
    const workingDir = config.workingDir ?? DEFAULT_WORKING_DIR;
    if (!workingDir.startsWith('/')) throw validationError(['images', index, 'workingDir'], 'must be an absolute path');
    if (config.user !== undefined && !/^[A-Za-z0-9_][A-Za-z0-9_.-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]*)?$/.test(config.user)) {
      throw validationError(['images', index, 'user'], 'a user is `name`, `uid`, `name:group` or `uid:gid`');
    }
    if (config.network !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(config.network)) {
      throw validationError(['images', index, 'network'], 'a network is `none` or a Docker network name');
    }
    if (config.network === 'none' && config.exposedPorts?.length) {
      throw validationError(['images', index, 'exposedPorts'], 'a spec with network `none` cannot publish ports');
    }
    checkRuntimeClassName(config.runtimeClass, ['images', index, 'runtimeClass']);
    if (config.egress) {
      parseAllowlist(config.egress.allow ?? [], ['images', index, 'egress', 'allow']);
      if (config.network !== undefined && config.network !== 'none')
        throw validationError(['images', index, 'network'], 'a spec with egress has no network of its own');
      if (config.exposedPorts?.length) throw validationError(['images', index, 'exposedPorts'], 'a spec with egress has no network to publish ports on');
    }
    return { ...config, id: config.id ?? config.image, workingDir };
  });
  const ids = new Set<string>();
  configs.forEach((config, index) => {
    if (ids.has(config.id)) throw validationError(['images', index, 'id'], `spec id ${JSON.stringify(config.id)} is used twice`);
    ids.add(config.id);
  });
  return configs;
}

/** `NAME=value` pairs (the engine's form) as a record; later entries win. */
export function envRecord(pairs: readonly string[] | null | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

/** The spec as users see it, from the image's configuration (when the engine has the image). */
export function describeSpec(config: ResolvedSpec['config'], image: Dockerode.ImageInspectInfo | null): SandboxSpec {
  return {
    id: config.id,
    command: config.command ?? null,
    created_at: image?.Created ? new Date(image.Created).toISOString() : new Date(0).toISOString(),
    initial_env: { ...envRecord(image?.Config?.Env), ...config.env },
    working_dir: config.workingDir,
  };
}

/** The URLs of a container's published ports, in the spec's order. */
export function exposedUrls(
  config: ResolvedSpec['config'] | undefined,
  ports: Record<string, { HostIp: string; HostPort: string }[] | null> | undefined,
  publicHost: string,
): ExposedUrl[] {
  const urls: ExposedUrl[] = [];
  for (const { name, port } of config?.exposedPorts ?? []) {
    const binding = ports?.[`${port}/tcp`]?.[0];
    if (binding?.HostPort) urls.push({ name, port: Number(binding.HostPort), url: `http://${publicHost}:${binding.HostPort}` });
  }
  return urls;
}
