/**
 * A TCP proxy in front of PostgreSQL that can pause: while paused, everything either side sends —
 * bytes, and a side's close — is held, in order, then released on resume. To the processes it is
 * a network that stops carrying packets for a while (a partition), without any connection being
 * refused or reset; to PostgreSQL, clients that went quiet.
 * @module
 */
import { connect, createServer, type Socket } from 'node:net';

export interface PausableProxy {
  /** The port on 127.0.0.1 clients connect to. */
  readonly port: number;
  readonly paused: boolean;
  /** Connections open now. */
  readonly connections: number;
  pause(): void;
  /** Releases what was held, in the order it came. */
  resume(): void;
  close(): Promise<void>;
}

export async function startProxy(target: { host: string; port: number }): Promise<PausableProxy> {
  let paused = false;
  /** What arrived while paused, to be done on resume. */
  let held: (() => void)[] = [];
  const open = new Set<Socket>();
  const later = (action: () => void) => (paused ? held.push(action) : action());

  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    open.add(client);
    let closed = false;
    const closeBoth = () => {
      if (closed) return;
      closed = true;
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => later(() => upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => later(() => client.write(chunk)));
    // A side's close travels like its bytes: held while paused.
    client.on('close', () => later(closeBoth));
    upstream.on('close', () => later(closeBoth));
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    port,
    get paused() {
      return paused;
    },
    get connections() {
      return open.size;
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      const actions = held;
      held = [];
      for (const action of actions) action();
    },
    close: () =>
      new Promise<void>((resolve) => {
        paused = false;
        held = [];
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
