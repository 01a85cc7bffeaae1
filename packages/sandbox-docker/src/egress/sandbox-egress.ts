/**
 * Egress for the Docker runtime: whether a sandbox gets it (the runtime's `egress` option, or its
 * spec's), its allowlist (the runtime's, the spec's and the start's own entries together), and the
 * proxies this process serves for it.
 * @module
 */
import os from 'node:os';
import path from 'node:path';
import { parseAllowlist, formatAllowlist } from './allowlist.js';
import { DEFAULT_BRIDGE_PORT, checkBridge, defaultBridgePath, type EgressContainerPlan } from './container.js';
import type { EgressEvent } from './proxy.js';

export type { EgressEvent } from './proxy.js';
import { EgressSockets } from './sockets.js';

/** A sandbox with no network of its own, reaching only listed hosts through the platform's proxy. */
export interface EgressOptions {
  /**
   * Hosts every such sandbox may reach: `github.com`, `*.example.com` (its subdomains), an IP
   * address, each with an optional `:port`. A spec's and a start's entries are added.
   */
  allow?: readonly string[];
  /**
   * The host directory of the proxies' Unix sockets (one directory per sandbox, mounted into its
   * container). Every process that starts or serves sandboxes on this engine's host uses the same
   * one. Default `<os tmpdir>/agent-platform-egress`.
   */
  socketDir?: string;
  /**
   * The bridge binary mounted into each container (built from the package's
   * `native/egress-bridge.c` with `gcc -static`). Default: `native/egress-bridge` in the package.
   */
  bridge?: string;
  /** The port the bridge listens on inside the container (127.0.0.1). Default 3128. */
  port?: number;
}

export class SandboxEgress {
  private readonly sockets: EgressSockets;
  private readonly allow: string[];

  constructor(
    private readonly options: EgressOptions | undefined,
    onEgress: ((event: EgressEvent) => void) | undefined,
  ) {
    this.allow = formatAllowlist(parseAllowlist(options?.allow ?? [], ['egress', 'allow']));
    this.sockets = new EgressSockets(options?.socketDir ?? path.join(os.tmpdir(), 'agent-platform-egress'), onEgress);
  }

  /**
   * What a start's container gets: undefined when neither the runtime nor the spec asks for
   * egress (the start's own entries alone turn nothing on: the platform names its git host for
   * every run). Serves the sandbox's proxy from here on.
   */
  async prepare(
    sandboxId: string,
    spec: { allow?: readonly string[] } | undefined,
    startAllow: readonly string[] | undefined,
  ): Promise<EgressContainerPlan | undefined> {
    if (!this.options && !spec) return undefined;
    const allow = [
      ...new Set([
        ...this.allow,
        ...formatAllowlist(parseAllowlist(spec?.allow ?? [], ['egress', 'allow'])),
        ...formatAllowlist(parseAllowlist(startAllow ?? [], ['egressAllow'])),
      ]),
    ];
    const bridge = checkBridge(this.options?.bridge ?? defaultBridgePath());
    const hostDir = await this.sockets.serve(sandboxId, allow);
    return { hostDir, bridge, port: this.options?.port ?? DEFAULT_BRIDGE_PORT, allow };
  }

  adopt(sandboxId: string, labels: Record<string, string> | undefined): Promise<void> {
    return this.sockets.adopt(sandboxId, labels);
  }

  release(sandboxId: string): Promise<void> {
    return this.sockets.release(sandboxId);
  }

  closeAll(): void {
    this.sockets.closeAll();
  }
}
