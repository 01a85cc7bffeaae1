/**
 * The egress proxy of one sandbox: an HTTP proxy (CONNECT for HTTPS and anything else over TCP,
 * absolute-URI requests for plain HTTP) that lets through only the hosts on the sandbox's
 * allowlist and answers every other ask with 403 and a one-line reason. It resolves names itself
 * and connects to the address it resolved (no second lookup a name could change in between),
 * keeping away from internal addresses unless the host is listed exactly (see `addresses.ts`).
 * Every decision is reported to `onEgress`.
 *
 * Written here rather than taken from a proxy package: the ones on npm resolve and connect
 * themselves, leaving no place for the address check between the two.
 * @module
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { addressesFor } from './addresses.js';
import { matchAllowlist, type AllowEntry } from './allowlist.js';

/** One connection asked of a sandbox's egress proxy, let through or refused. */
export interface EgressEvent {
  sandboxId: string;
  host: string;
  port: number;
  allowed: boolean;
  /** Why it was refused (absent when allowed). */
  reason?: string;
}

export interface EgressPolicy {
  sandboxId: string;
  allowlist: readonly AllowEntry[];
  onEgress?: ((event: EgressEvent) => void) | undefined;
}

type Decision = { addresses: string[]; reason: null } | { addresses: []; reason: string };

async function decide(policy: EgressPolicy, host: string, port: number): Promise<Decision> {
  const entry = matchAllowlist(policy.allowlist, host, port);
  const decision: Decision = entry
    ? ((await addressesFor(host, !entry.wildcard)) as Decision)
    : { addresses: [], reason: `${host}:${port} is not on this sandbox's egress allowlist` };
  try {
    policy.onEgress?.({
      sandboxId: policy.sandboxId,
      host,
      port,
      allowed: decision.reason === null,
      ...(decision.reason === null ? {} : { reason: decision.reason }),
    });
  } catch {
    // A listener's failure is not the connection's.
  }
  return decision;
}

const STATUS_TEXT = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' } as const;

function refusal(status: keyof typeof STATUS_TEXT, reason: string): string {
  const body = `egress ${status === 502 ? 'failed' : 'refused'}: ${reason}\n`;
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Connects to the first address that answers. */
function connectFirst(addresses: readonly string[], port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const attempt = (index: number, lastError: unknown): void => {
      const address = addresses[index];
      if (address === undefined) {
        reject(lastError);
        return;
      }
      const socket = net.connect({ host: address, port });
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (error) => attempt(index + 1, error));
    };
    attempt(0, new Error('no address'));
  });
}

function splice(a: Duplex, b: Duplex): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

/** `host:port` of a CONNECT, or null. */
function authority(text: string | undefined): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text ?? '');
  const port = Number(match?.[2]);
  return match?.[1] && port >= 1 && port <= 65535 ? { host: match[1].replace(/^\[(.*)\]$/, '$1'), port } : null;
}

/** Headers for the destination: hop-by-hop and proxy headers removed. */
function forwardedHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = { ...headers };
  for (const name of ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']) delete out[name];
  return out;
}

/** The proxy's HTTP server; listen on whatever the caller chooses (a Unix socket). */
export function createEgressProxy(policy: EgressPolicy): http.Server {
  const server = http.createServer(async (request, response) => {
    let url: URL | null = null;
    try {
      url = new URL(request.url ?? '');
    } catch {
      url = null;
    }
    if (url?.protocol !== 'http:') {
      response.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
      response.end('egress refused: ask for an absolute http:// URL, or CONNECT host:port for anything else\n');
      return;
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(url.port || 80);
    const decision = await decide(policy, host, port);
    if (decision.reason !== null) {
      response.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
      response.end(`egress refused: ${decision.reason}\n`);
      return;
    }
    let socket: net.Socket;
    try {
      socket = await connectFirst(decision.addresses, port);
    } catch {
      response.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
      response.end(`egress: ${host}:${port} did not answer\n`);
      return;
    }
    const upstream = http.request({
      createConnection: () => socket,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      // The host asked for, whatever Host the client sent: no reaching another virtual host on the same address.
      headers: { ...forwardedHeaders(request.headers), host: url.host },
      setHost: false,
    });
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
      response.end();
    });
    request.pipe(upstream);
  });

  server.on('connect', async (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => undefined);
    const target = authority(request.url);
    if (!target) {
      client.end(refusal(400, 'CONNECT needs host:port'));
      return;
    }
    const decision = await decide(policy, target.host, target.port);
    if (decision.reason !== null) {
      client.end(refusal(403, decision.reason));
      return;
    }
    try {
      const socket = await connectFirst(decision.addresses, target.port);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) socket.write(head);
      splice(client, socket);
    } catch {
      client.end(refusal(502, `${target.host}:${target.port} did not answer`));
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}
