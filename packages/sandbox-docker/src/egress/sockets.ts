/**
 * The egress proxies this process serves, one per sandbox, each on a Unix socket in a directory
 * of its own under the socket directory (`<socketDir>/<hash of the sandbox id>/proxy.sock`), the
 * directory the sandbox's container mounts. A socket tells whose connection it is, so each proxy
 * applies its own sandbox's allowlist.
 *
 * Any process on the host with the same socket directory can serve a sandbox: one whose proxy's
 * process is gone serves it again when it next inspects the sandbox or runs a command in it
 * ({@link EgressSockets.adopt}), from the allowlist kept on the container. Until then, the
 * sandbox's connections to the proxy fail.
 * @module
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, rm, unlink } from 'node:fs/promises';
import type http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { parseAllowlist } from './allowlist.js';
import { EGRESS_LABEL, SOCKET_NAME } from './container.js';
import { createEgressProxy, type EgressEvent } from './proxy.js';

export class EgressSockets {
  private readonly servers = new Map<string, http.Server>();
  private readonly adopting = new Map<string, Promise<void>>();

  constructor(
    private readonly socketDir: string,
    private readonly onEgress: ((event: EgressEvent) => void) | undefined,
  ) {}

  /** The host directory of a sandbox's socket (short whatever the id: a socket path has ~100 bytes). */
  hostDir(sandboxId: string): string {
    return path.join(this.socketDir, createHash('sha256').update(sandboxId).digest('hex').slice(0, 24));
  }

  /** Serves the sandbox's proxy (replacing a socket left by a process that is gone); returns its directory. */
  async serve(sandboxId: string, allow: readonly string[]): Promise<string> {
    const dir = this.hostDir(sandboxId);
    // 0755: the container's user, whoever it is, reaches the socket; it cannot change the directory.
    await mkdir(dir, { recursive: true, mode: 0o755 });
    const socket = path.join(dir, SOCKET_NAME);
    await unlink(socket).catch(() => undefined);
    this.close(sandboxId);
    const server = createEgressProxy({ sandboxId, allowlist: parseAllowlist(allow, ['egress', 'allow']), onEgress: this.onEgress });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socket, 0o666);
    // The proxy does not keep its process alive: the sandbox's life is not the process's.
    server.unref();
    this.servers.set(sandboxId, server);
    return dir;
  }

  /**
   * Serves the proxy of a sandbox whose container says it has one (its egress label) when no
   * process answers on its socket: the process that served it is gone.
   */
  async adopt(sandboxId: string, labels: Record<string, string> | undefined): Promise<void> {
    const label = labels?.[EGRESS_LABEL];
    if (label === undefined || this.servers.has(sandboxId)) return;
    let adopting = this.adopting.get(sandboxId);
    if (!adopting) {
      adopting = (async () => {
        if (await answers(path.join(this.hostDir(sandboxId), SOCKET_NAME))) return;
        const allow = JSON.parse(label) as unknown;
        await this.serve(sandboxId, Array.isArray(allow) ? allow.map(String) : []);
      })().finally(() => this.adopting.delete(sandboxId));
      this.adopting.set(sandboxId, adopting);
    }
    await adopting;
  }

  /** Stops serving the sandbox and removes its directory (the sandbox is gone). */
  async release(sandboxId: string): Promise<void> {
    this.close(sandboxId);
    await rm(this.hostDir(sandboxId), { recursive: true, force: true });
  }

  /** Stops serving every sandbox this process serves, leaving their sockets' directories. */
  closeAll(): void {
    for (const sandboxId of [...this.servers.keys()]) this.close(sandboxId);
  }

  private close(sandboxId: string): void {
    const server = this.servers.get(sandboxId);
    this.servers.delete(sandboxId);
    server?.close();
    server?.closeAllConnections();
  }
}

/** Whether a process serves this socket now. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = net.connect(socket);
    connection.once('connect', () => {
      connection.destroy();
      resolve(true);
    });
    connection.once('error', () => resolve(false));
  });
}
