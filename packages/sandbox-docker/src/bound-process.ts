/**
 * Sandboxes bound to their process (`StartSandboxInput.boundToProcess`). The container's main
 * process waits for the end of its stdin; the runtime holds the container's stdin open through an
 * attach connection for the sandbox's life. When the runtime's process dies — however it dies,
 * SIGKILL included — the kernel closes that connection, the engine closes the container's stdin
 * (`StdinOnce`), the main process exits, the container stops with everything in it, and the
 * engine removes it (`AutoRemove`, with its anonymous working-directory volume).
 * @module
 */
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { BOUND_LABEL, MANAGED_LABEL } from './labels.js';

/**
 * PID 1 of a bound sandbox: `"$@"` (the spec's command, if any) in the background, then wait
 * until stdin ends and exit. `cat` reads a copy of stdin (a background job's own stdin is
 * /dev/null); `wait` lets `docker stop`'s TERM end it at once.
 */
export const BOUND_INIT = 'trap \'exit 0\' TERM INT; exec 3<&0 </dev/null; if [ $# -gt 0 ]; then "$@" & fi; cat <&3 >/dev/null & wait $!';

/** How old a bound container left `created` (its process died before starting it) must be to go. */
const STALE_CREATED_MS = 2 * 60_000;

/** The create options that bind a container to the attach connection holding its stdin. */
export function boundContainerOptions(
  command: readonly string[] | undefined,
): Pick<Dockerode.ContainerCreateOptions, 'Entrypoint' | 'Cmd' | 'OpenStdin' | 'StdinOnce' | 'AttachStdin'> {
  return { Entrypoint: ['/bin/sh', '-c', BOUND_INIT, 'sh', ...(command ?? [])], Cmd: [], OpenStdin: true, StdinOnce: true, AttachStdin: true };
}

/** The attach connections holding bound sandboxes' stdin, by sandbox id. */
export class BoundConnections {
  private readonly connections = new Map<string, Duplex>();

  /**
   * Attaches to the container's stdin (before it starts, so its main process never runs without
   * the connection) and keeps the connection. It does not keep this process alive: when the
   * process exits without `close()`, the sandbox goes with it, as bound.
   */
  async attach(sandboxId: string, container: Dockerode.Container): Promise<void> {
    const connection = (await container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true })) as Duplex;
    // The engine sends nothing (no output is attached); an engine gone away ends the sandbox anyway.
    connection.on('error', () => undefined);
    connection.on('close', () => {
      if (this.connections.get(sandboxId) === connection) this.connections.delete(sandboxId);
    });
    connection.resume();
    (connection as Duplex & { unref?: () => void }).unref?.();
    this.release(sandboxId);
    this.connections.set(sandboxId, connection);
  }

  /** Closes the connection: the sandbox's main process exits (after a delete, already gone). */
  release(sandboxId: string): void {
    const connection = this.connections.get(sandboxId);
    this.connections.delete(sandboxId);
    connection?.destroy();
  }

  releaseAll(): void {
    for (const sandboxId of [...this.connections.keys()]) this.release(sandboxId);
  }
}

/**
 * Removes bound containers whose process is gone: stopped ones the engine did not remove (it
 * was down, say), and ones never started (their process died between create and start). Any
 * runtime may do it: a bound container that is not running has no process that wants it.
 */
export async function sweepUnboundLeftovers(docker: Dockerode): Promise<number> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`, `${BOUND_LABEL}=true`] } });
  const stale = containers.filter(
    (container) =>
      container.State === 'exited' || container.State === 'dead' || (container.State === 'created' && container.Created * 1000 < Date.now() - STALE_CREATED_MS),
  );
  await Promise.all(
    stale.map((container) =>
      docker
        .getContainer(container.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  return stale.length;
}
