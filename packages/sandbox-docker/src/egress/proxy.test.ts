/**
 * The egress proxy over a real Unix socket, to real loopback servers: what a sandbox's bridge
 * would send it, byte for byte.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressesFor } from './addresses.js';
import { parseAllowlist } from './allowlist.js';
import { createEgressProxy, type EgressEvent } from './proxy.js';

let dir = '';
let socket = '';
let target: http.Server;
let port = 0;
let proxy: http.Server;
const events: EgressEvent[] = [];

/** Sends raw bytes to the proxy's socket and resolves with everything it answers. */
function ask(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let answer = '';
    connection.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    connection.on('end', () => resolve(answer));
    connection.on('error', reject);
    connection.write(bytes);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'egress-proxy-'));
  socket = path.join(dir, 'proxy.sock');
  target = http.createServer((request, response) => response.end(`hello ${request.method} ${request.url} host=${request.headers.host}`));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  port = (target.address() as AddressInfo).port;
  proxy = createEgressProxy({
    sandboxId: 'sbx-1',
    allowlist: parseAllowlist([`127.0.0.1:${port}`, 'unresolvable.invalid'], ['x']),
    onEgress: (event) => events.push(event),
  });
  await new Promise<void>((resolve) => proxy.listen(socket, resolve));
});
afterAll(async () => {
  proxy?.close();
  target?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the egress proxy', () => {
  it('forwards an absolute-URI request to a listed host, with the URL’s host as Host and without proxy headers', async () => {
    const answer = await ask(`GET http://127.0.0.1:${port}/a?b=1 HTTP/1.1\r\nHost: internal.example\r\nProxy-Authorization: x\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain(`hello GET /a?b=1 host=127.0.0.1:${port}`);
    expect(events.at(-1)).toEqual({ sandboxId: 'sbx-1', host: '127.0.0.1', port, allowed: true });
  });

  it('tunnels a CONNECT to a listed host and passes bytes both ways', async () => {
    const answer = await ask(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\nGET /t HTTP/1.0\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(answer).toContain('hello GET /t');
  });

  it('refuses an unlisted host or port with 403 and the reason, and reports it', async () => {
    const connect = await ask('CONNECT example.com:443 HTTP/1.1\r\n\r\n');
    expect(connect).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(connect).toContain("egress refused: example.com:443 is not on this sandbox's egress allowlist");
    const plain = await ask(`GET http://127.0.0.1:${port + 1}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(plain).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(events).toContainEqual({
      sandboxId: 'sbx-1',
      host: 'example.com',
      port: 443,
      allowed: false,
      reason: "example.com:443 is not on this sandbox's egress allowlist",
    });
  });

  it('does not reach an internal address unless listed exactly, nor a name that does not resolve', async () => {
    // What a wildcard-matched name gets (see `decide`): its internal addresses left out.
    expect(await addressesFor('localhost', false)).toEqual({
      addresses: [],
      reason: 'localhost resolves to an internal address, reachable only when listed exactly',
    });
    expect((await addressesFor('localhost', true)).addresses.length).toBeGreaterThan(0);
    expect(await addressesFor('127.0.0.1', false)).toMatchObject({ addresses: [] });
    const unresolved = await ask('CONNECT unresolvable.invalid:443 HTTP/1.1\r\n\r\n');
    expect(unresolved).toContain('egress refused: unresolvable.invalid could not be resolved');
  });

  it('answers 400 to what is not a proxy request', async () => {
    expect(await ask('GET /relative HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(await ask('CONNECT nowhere HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await ask(`GET https://127.0.0.1:${port}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 Bad Request/);
  });
});
