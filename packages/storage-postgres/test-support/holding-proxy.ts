/**
 * A TCP proxy in front of the test server that can hold back what the server sends and pass it on
 * in one write, so the client reads in one go messages the server sent apart — a query's answer
 * and then the error of its connection being ended — as a busy client can.
 */
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  /** The server's URL with the proxy's port instead. */
  readonly url: string;
  /** Starts holding back what the server sends on the one connection open now. */
  hold(): HeldConnection;
  close(): Promise<void>;
}

export interface HeldConnection {
  /** Resolves once what the server sent since `hold` (and whether it closed) satisfies `test`. */
  until(test: (held: Buffer, serverEnded: boolean) => boolean): Promise<void>;
  /** Passes what was held to the client in one write, then the server's end if it ended. */
  release(): void;
}

/** PostgreSQL's ReadyForQuery message ("Z", length 5) up to its status byte. */
export const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

interface Pipe {
  client: net.Socket;
  server: net.Socket;
  held?: Buffer[];
  ended: boolean;
  changed?: () => void;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const pipes = new Set<Pipe>();
  const proxy = net.createServer((client) => {
    const pipe: Pipe = { client, server: net.connect(Number(upstream.port || 5432), upstream.hostname), ended: false };
    pipes.add(pipe);
    client.on('data', (data) => pipe.server.write(data));
    pipe.server.on('data', (data) => {
      if (pipe.held) {
        pipe.held.push(data);
        pipe.changed?.();
      } else {
        client.write(data);
      }
    });
    pipe.server.on('end', () => {
      pipe.ended = true;
      if (pipe.held) pipe.changed?.();
      else client.end();
    });
    client.on('close', () => {
      pipe.server.destroy();
      pipes.delete(pipe);
    });
    client.on('error', () => undefined);
    pipe.server.on('error', () => undefined);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);

  return {
    url: url.toString(),
    hold() {
      const [pipe, ...more] = pipes;
      if (!pipe || more.length > 0) throw new Error(`hold() needs exactly one open connection, not ${pipes.size}`);
      pipe.held = [];
      return {
        until(test) {
          return new Promise((resolve) => {
            pipe.changed = () => {
              if (test(Buffer.concat(pipe.held ?? []), pipe.ended)) resolve();
            };
            pipe.changed();
          });
        },
        release() {
          const held = Buffer.concat(pipe.held ?? []);
          pipe.held = undefined;
          pipe.changed = undefined;
          pipe.client.write(held);
          if (pipe.ended) pipe.client.end();
        },
      };
    },
    async close() {
      for (const pipe of pipes) pipe.client.destroy();
      proxy.close();
      await once(proxy, 'close');
    },
  };
}
