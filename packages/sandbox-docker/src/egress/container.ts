/**
 * What egress changes in a sandbox's container: no network of its own (`NetworkMode: none`);
 * the bridge binary mounted read-only and started ahead of the container's own entrypoint (it
 * forks, serves 127.0.0.1:<port> and hands PID 1 to the entrypoint); the sandbox's socket
 * directory mounted where the bridge looks for the proxy's socket; the proxy variables in its
 * environment, which `docker exec` passes to every command; and the allowlist in a label, so any
 * process can serve the socket again from the container alone.
 * @module
 */
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Dockerode from 'dockerode';
import { PlatformError } from '@agent-platform/core';

/** Where the bridge and the proxy's socket are, inside the container. */
export const BRIDGE_TARGET = '/.agent-platform/egress-bridge';
export const SOCKET_TARGET_DIR = '/.agent-platform/egress';
export const SOCKET_NAME = 'proxy.sock';
/** The allowlist (JSON array of entries) on a container whose egress goes through the proxy. */
export const EGRESS_LABEL = 'dev.agent-platform.egress-allow';
/** The bridge's port inside the container when the runtime names none. */
export const DEFAULT_BRIDGE_PORT = 3128;

/**
 * The bridge built in this package's `native/` folder (scripts/docker-setup.sh builds it there),
 * found from this module's place: `src/egress/` in the source, `dist/` once built.
 */
export function defaultBridgePath(): string | undefined {
  try {
    let dir = path.dirname(fileURLToPath(import.meta.url));
    for (let up = 0; up < 4; up++, dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, 'native', 'egress-bridge.c'))) return path.join(dir, 'native', 'egress-bridge');
    }
  } catch {
    // No module URL (a CommonJS build): the `bridge` option is needed.
  }
  return undefined;
}

/** The bridge binary, checked to be there and executable: a clear error says how to build it. */
export function checkBridge(path: string | undefined): string {
  try {
    if (!path) throw new Error('no path');
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    throw new PlatformError(
      'UNAVAILABLE',
      `The egress bridge ${path ? `${path} ` : ''}is missing: build it with \`gcc -static -O2 -o <path> egress-bridge.c\` ` +
        "(the source is native/egress-bridge.c in @agent-platform/sandbox-docker) and name it in the runtime's `egress.bridge` option",
    );
  }
}

export interface EgressContainerPlan {
  /** The host directory served for this sandbox (its proxy's socket is inside). */
  hostDir: string;
  bridge: string;
  port: number;
  /** The allowlist as written, for the label. */
  allow: readonly string[];
}

/** The create options of a sandbox with egress through the proxy. */
export function withEgress(options: Dockerode.ContainerCreateOptions, plan: EgressContainerPlan): Dockerode.ContainerCreateOptions {
  const proxy = `http://127.0.0.1:${plan.port}`;
  const proxyEnv = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].map((name) => `${name}=${proxy}`);
  const noProxy = ['NO_PROXY', 'no_proxy'].map((name) => `${name}=localhost,127.0.0.1`);
  const proxyNames = /^(HTTPS?_PROXY|https?_proxy|NO_PROXY|no_proxy)=/;
  const entrypoint = typeof options.Entrypoint === 'string' ? [options.Entrypoint] : (options.Entrypoint ?? []);
  return {
    ...options,
    Entrypoint: [BRIDGE_TARGET, String(plan.port), `${SOCKET_TARGET_DIR}/${SOCKET_NAME}`, ...entrypoint],
    Env: [...(options.Env ?? []).filter((pair) => !proxyNames.test(pair)), ...proxyEnv, ...noProxy],
    Labels: { ...options.Labels, [EGRESS_LABEL]: JSON.stringify(plan.allow) },
    HostConfig: {
      ...options.HostConfig,
      NetworkMode: 'none',
      Mounts: [
        ...(options.HostConfig?.Mounts ?? []),
        { Type: 'bind', Source: plan.bridge, Target: BRIDGE_TARGET, ReadOnly: true },
        { Type: 'bind', Source: plan.hostDir, Target: SOCKET_TARGET_DIR, ReadOnly: true },
      ],
    },
  };
}
