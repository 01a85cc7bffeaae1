/**
 * The egress allowlist, from inside a sandbox on the real Docker engine (busybox test image),
 * under runc and under gVisor (runsc): the sandbox has no network of its own, only the platform's
 * proxy on a mounted Unix socket, reached through the bridge on 127.0.0.1:3128. A listed host
 * answers through it (plain HTTP and CONNECT); another is refused with 403 and the refusal is
 * recorded on the run's events; a raw TCP connection and a DNS lookup fail; another process
 * serves a sandbox whose proxy's process is gone.
 *
 * Docker: in CI (`.ci/run` starts an engine, builds the image and the bridge, registers runsc)
 * this must run, not skip.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../packages/http/test-support/harness.js';
import { createDockerRuntime, type EgressEvent } from '../../packages/sandbox-docker/src/index.js';
import { serverRuntimes, TEST_IMAGE } from './support/runtimes.js';
import { runtimeClasses } from './support/runsc.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const onDocker = (await serverRuntimes('egress allowlist on docker')).some((runtime) => runtime.name === 'docker');
const { classes, runscSkip } = onDocker ? await runtimeClasses() : { classes: [], runscSkip: null };
if (onDocker && runscSkip) describe('egress allowlist under gVisor', () => it.skip(runscSkip, () => {}));

const execFileAsync = promisify(execFile);

/** A command in the sandbox: its output and exit code. */
async function run(runtime: SandboxRuntime, sandboxId: string, command: string): Promise<{ out: string; code: number | null }> {
  let out = '';
  let code: number | null = null;
  for await (const event of runtime.exec(sandboxId, { command, timeoutMs: 20_000 })) {
    if (event.type === 'exit') code = event.result.exitCode;
    else out += event.data;
  }
  return { out, code };
}

let server: http.Server;
let port = 0;
let socketDir = '';

beforeAll(async () => {
  if (!onDocker) return;
  socketDir = await mkdtemp(path.join(os.tmpdir(), 'egress-test-'));
  // A host-side server on 127.0.0.2: a loopback address the sandbox's NO_PROXY (localhost,
  // 127.0.0.1) does not cover, so its tools go through the proxy, which connects from the host.
  server = http.createServer((request, response) => response.end(`hello from the host: ${request.method} ${request.url}\n`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.close();
  if (socketDir) await rm(socketDir, { recursive: true, force: true });
});

describe.runIf(onDocker).each(classes)('egress allowlist under %s', { timeout: 60_000 }, (runtimeClass) => {
  let runtime: SandboxRuntime;
  const events: EgressEvent[] = [];
  const sandboxId = `egress-${runtimeClass}-${process.pid}`;

  beforeAll(async () => {
    runtime = createDockerRuntime({
      images: [TEST_IMAGE],
      pull: false,
      runtimeClass,
      egress: { allow: [`127.0.0.2:${port}`], socketDir },
      onEgress: (event) => events.push(event),
    });
    const started = await runtime.start({ sandboxId, specId: TEST_IMAGE, egressAllow: ['git.example.test'] });
    expect(started).toMatchObject({ status: 'RUNNING', runtimeClass });
  });
  afterAll(async () => {
    await runtime?.close();
  });

  it('a listed host answers through the proxy (plain HTTP and CONNECT), from a non-root user too', async () => {
    const plain = await run(runtime, sandboxId, `wget -q -O- http://127.0.0.2:${port}/plain`);
    expect(plain).toEqual({ out: 'hello from the host: GET /plain\n', code: 0 });
    // A CONNECT tunnel, as HTTPS clients ask for one; the bytes after it reach the host's server.
    const tunnel = await run(
      runtime,
      sandboxId,
      `printf 'CONNECT 127.0.0.2:${port} HTTP/1.1\\r\\nHost: 127.0.0.2:${port}\\r\\n\\r\\nGET /tunnel HTTP/1.0\\r\\n\\r\\n' | nc 127.0.0.1 3128`,
    );
    expect(tunnel.out).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(tunnel.out).toContain('hello from the host: GET /tunnel');
    const asAgent = await run(runtime, sandboxId, `su agent -c 'wget -q -O- http://127.0.0.2:${port}/agent'`);
    expect(asAgent).toEqual({ out: 'hello from the host: GET /agent\n', code: 0 });
    expect(events).toContainEqual({ sandboxId, host: '127.0.0.2', port, allowed: true });
  });

  it('another host is refused with 403 and a reason, and the refusal is reported', async () => {
    const refused = await run(runtime, sandboxId, 'wget -S -O- http://example.com/ 2>&1');
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain('403 Forbidden');
    const tunnel = await run(runtime, sandboxId, `printf 'CONNECT example.com:443 HTTP/1.1\\r\\n\\r\\n' | nc 127.0.0.1 3128`);
    expect(tunnel.out).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(tunnel.out).toContain("egress refused: example.com:443 is not on this sandbox's egress allowlist");
    // The listed host on another port is not listed.
    const otherPort = await run(runtime, sandboxId, `wget -S -O- http://127.0.0.2:${port + 1}/ 2>&1`);
    expect(otherPort.out).toContain('403 Forbidden');
    expect(events).toContainEqual(expect.objectContaining({ sandboxId, host: 'example.com', port: 80, allowed: false }));
    expect(events).toContainEqual(expect.objectContaining({ sandboxId, host: 'example.com', port: 443, allowed: false }));
  });

  it('the start’s own entries are on the allowlist; an internal address behind a name is not reached', async () => {
    // git.example.test is listed (by the start) but resolves nowhere: refused for that, not for the list.
    const unresolved = await run(runtime, sandboxId, `printf 'CONNECT git.example.test:443 HTTP/1.1\\r\\n\\r\\n' | nc 127.0.0.1 3128`);
    expect(unresolved.out).toContain('egress refused: git.example.test could not be resolved');
  });

  it('has no network of its own: raw TCP and DNS fail', async () => {
    const raw = await run(runtime, sandboxId, 'nc -w 3 1.1.1.1 80 </dev/null; echo "exit $?"');
    expect(raw.out).toMatch(/exit [1-9]/);
    const host = await run(runtime, sandboxId, 'nc -w 3 172.17.0.1 80 </dev/null; echo "exit $?"');
    expect(host.out).toMatch(/exit [1-9]/);
    const dns = await run(runtime, sandboxId, 'nslookup example.com; echo "exit $?"');
    expect(dns.out).toMatch(/exit [1-9]/);
    expect(dns.out).not.toMatch(/Address: \d+\.\d+\.\d+\.\d+\s*$/m);
  });

  it('another process’s runtime serves the sandbox whose proxy’s process is gone', async () => {
    // This runtime stops serving (as its process would, dying); the sandbox stays.
    (runtime as unknown as { containment: { closeAll(): void } }).containment.closeAll();
    // Asked past the runtimes (which would serve it again): nobody answers on its socket now.
    const down = await execFileAsync('docker', [
      'exec',
      `agent-platform-${sandboxId}`,
      'sh',
      '-c',
      `wget -q -O- http://127.0.0.2:${port}/down 2>&1; echo "exit $?"`,
    ]);
    expect(down.stdout).toMatch(/exit [1-9]/);
    const other = createDockerRuntime({ images: [TEST_IMAGE], pull: false, runtimeClass, egress: { socketDir }, onEgress: (event) => events.push(event) });
    expect((await other.inspect(sandboxId)).status).toBe('RUNNING');
    const again = await run(other, sandboxId, `wget -q -O- http://127.0.0.2:${port}/again`);
    expect(again).toEqual({ out: 'hello from the host: GET /again\n', code: 0 });
    // The allowlist came with the container (its label), not from the second runtime's options.
    expect((await run(other, sandboxId, 'wget -S -O- http://example.com/ 2>&1')).out).toContain('403 Forbidden');
  });
});

describe.runIf(onDocker)('egress refusals on the run', { timeout: 60_000 }, () => {
  let harness: Harness;
  let runtime: SandboxRuntime;

  beforeAll(async () => {
    runtime = createDockerRuntime({
      images: [TEST_IMAGE],
      pull: false,
      egress: { allow: [`127.0.0.2:${port}`], socketDir },
      onEgress: (event) => void harness?.platform.sandboxes.recordEgress(event),
    });
    harness = await startHarness('node', {
      platform: {
        runtime,
        agent: createCommandAgentRunner({
          command: `wget -q -O- http://127.0.0.2:${port}/run; wget -q -O- http://exfiltrate.example/ 2>&1; wget -q -O- http://exfiltrate.example/again 2>&1; echo done`,
        }),
        executor: { concurrency: 1, pollIntervalMs: 100, retryBackoffMs: 100 },
      },
    });
    await harness.platform.start();
  });
  afterAll(async () => {
    await harness?.platform.stop();
    await harness?.close();
    await runtime?.close();
  });

  it('records a refused host once on the run’s conversation, beside the agent’s output', async () => {
    const api = async (method: string, route: string, json?: unknown) => (await harness.request(method, route, json === undefined ? {} : { json })).json;
    const automation = await api('POST', '/api/automation/v1', {
      name: 'egress',
      trigger: { type: 'event', source: 'ci', on: 'egress.test' },
      instructions: 'reach out',
      timeout_seconds: 60,
    });
    const dispatched = await api('POST', `/api/automation/v1/${automation.id}/dispatch`, { payload: {} });
    const runId = dispatched.run_id ?? dispatched.id;
    let run: any;
    for (;;) {
      run = ((await api('GET', `/api/automation/v1/${automation.id}/runs`)).runs as any[]).find((candidate) => candidate.id === runId);
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(run.status).toBe('COMPLETED');
    // The refusal is appended as the proxy hears of it, beside the agent's own writes: read until
    // it is there (a stall guard of 10 s bounds the wait).
    let events: any[] = [];
    for (let tries = 0; tries < 100; tries++) {
      events = (await api('GET', `/api/v1/app-conversations/${run.conversation_id}/events`)).items as any[];
      if (events.some((event) => event.data?.type === 'egress_refused')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const outputs = events.filter((event) => event.kind === 'agent_output').map((event) => event.message);
    expect(outputs).toContain('hello from the host: GET /run');
    expect(outputs.some((line: string) => /403 Forbidden/.test(line))).toBe(true);
    const refusals = events.filter((event) => event.data?.type === 'egress_refused');
    expect(refusals).toEqual([
      expect.objectContaining({
        kind: 'agent_event',
        source: 'environment',
        message: "egress refused: exfiltrate.example:80 is not on this sandbox's egress allowlist",
        data: { type: 'egress_refused', host: 'exfiltrate.example', port: 80, reason: "exfiltrate.example:80 is not on this sandbox's egress allowlist" },
      }),
    ]);
  });
});

describe.runIf(onDocker)('the reference server with gVisor and an egress allowlist', { timeout: 120_000 }, () => {
  const KEY = 'e2e-egress-key-0123456789abcdef';
  let server: RunningServer;
  const call = async (method: string, route: string, json?: unknown) => {
    const response = await fetch(`${server.baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return (await response.json()) as any;
  };

  beforeAll(async () => {
    server = await startServer('examples/server', {
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SANDBOX: 'docker',
      AGENT_PLATFORM_DOCKER_IMAGES: TEST_IMAGE,
      // gVisor where the engine has it (in CI it must), else the engine's runc.
      AGENT_PLATFORM_SANDBOX_RUNTIME_CLASS: classes.includes('runsc') ? 'runsc' : 'runc',
      AGENT_PLATFORM_SANDBOX_EGRESS_ALLOW: `127.0.0.2:${port}`,
      AGENT_PLATFORM_SANDBOX_EGRESS_SOCKET_DIR: socketDir,
      AGENT_PLATFORM_BUILTIN_AGENT: 'off',
      AGENT_PLATFORM_AGENT_COMMAND: `wget -q -O- http://127.0.0.2:${port}/server; wget -q -O- http://exfiltrate.example/ 2>&1; echo done`,
    });
  });
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
  });

  it('completes a run in a contained sandbox: the listed host answers, another is refused and recorded', async () => {
    const automation = await call('POST', '/api/automation/v1', {
      name: 'contained',
      trigger: { type: 'event', source: 'ci', on: 'contained' },
      instructions: 'go',
    });
    await call('POST', `/api/automation/v1/${automation.id}/dispatch`, { payload: {} });
    let run: any;
    for (let tries = 0; tries < 600; tries++) {
      run = (await call('GET', `/api/automation/v1/${automation.id}/runs`)).runs[0];
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    let events: any[] = [];
    for (let tries = 0; tries < 100; tries++) {
      events = (await call('GET', `/api/v1/app-conversations/${run.conversation_id}/events`)).items;
      if (events.some((event) => event.data?.type === 'egress_refused')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const outputs = events.filter((event) => event.kind === 'agent_output').map((event) => event.message);
    expect(outputs).toContain('hello from the host: GET /server');
    expect(outputs).toContain('done');
    expect(events).toContainEqual(
      expect.objectContaining({ kind: 'agent_event', data: expect.objectContaining({ type: 'egress_refused', host: 'exfiltrate.example', port: 80 }) }),
    );
  });
});
