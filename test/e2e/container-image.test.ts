/**
 * The reference server's container image (the repository's Dockerfile), run as an operator runs it.
 * scripts/image-setup.sh builds it (CI starts that in the background while it lints and builds;
 * here the script waits for that run, or builds, then finds its build cached). Two containers of
 * the image on the host's network, against a fresh database of this file's own on the local
 * PostgreSQL: the API server alone (`AGENT_PLATFORM_EXECUTOR=off`) and a worker — `node
 * dist/worker.js`, the command deploy/compose.yaml and the Kubernetes worker Deployment run — so
 * the image's two commands both prove themselves. The API becomes ready and its HEALTHCHECK
 * reports healthy; a signed event makes a run that the worker executes (the demo agent in the
 * process sandbox runtime, inside the container: no Docker in Docker) to COMPLETED; `docker stop`
 * (SIGTERM, through tini) stops each with exit code 0 after its clean-shutdown log line. Then,
 * as docs/deploy.md shows for Docker sandboxes, a container of the image given the host engine's
 * socket (and its group) starts a sandbox container on that engine, and removes it when stopped.
 *
 * Needs a Docker engine: in CI (or with AGENT_PLATFORM_DOCKER_TESTS=1) a missing one is an error,
 * not a skip.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import Dockerode from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/readme-embedding.js';
import { apiClient } from './support/http-api.js';
import { root } from './support/reference-server.js';
import { admin, createTestDatabase } from './support/run-nodes.js';

const run = promisify(execFile);
const IMAGE = process.env.AGENT_PLATFORM_SERVER_IMAGE ?? 'agent-platform/server';
const KEY = 'e2e-image-key-0123456789abcdef';
const WEBHOOK_SECRET = 'image-webhook-secret-0123456789';
const suffix = randomBytes(4).toString('hex');
const containers = { api: `ap-image-api-${suffix}`, worker: `ap-image-worker-${suffix}`, sandboxes: `ap-image-sandboxes-${suffix}` };
const TEST_IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';

/** Why this file cannot run here, or null; in CI a missing engine fails the file instead. */
async function dockerMissing(): Promise<string | null> {
  try {
    await new Dockerode().ping();
    return null;
  } catch {
    const missing = 'no Docker engine answers here (scripts/docker-setup.sh installs and starts one)';
    if (process.env.CI === 'true' || process.env.AGENT_PLATFORM_DOCKER_TESTS === '1') throw new Error(missing);
    return missing;
  }
}

const missing = await dockerMissing();

const docker = async (...args: string[]) => (await run('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
const inspect = async (name: string) => JSON.parse(await docker('inspect', name))[0];
const logsOf = async (name: string) => {
  const { stdout, stderr } = await run('docker', ['logs', name], { maxBuffer: 16 * 1024 * 1024 });
  return stdout + stderr;
};

/** Polls `check` until it returns a value; a stall guard, not a speed check. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms: number, logs?: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${logs ? `\n${await logsOf(logs).catch(() => '')}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(missing !== null)('the container image', () => {
  let database: { name: string; url: string };
  let port: number;
  let baseUrl: string;

  beforeAll(async () => {
    // A first build from nothing takes minutes on a 2-core machine; CI's background build leaves
    // this a cache check. Ten times a first build's time as the stall guard.
    await run('bash', ['scripts/image-setup.sh'], { cwd: root, timeout: 1_500_000, maxBuffer: 16 * 1024 * 1024 }).catch((error) => {
      throw new Error(`scripts/image-setup.sh failed:\n${error.stderr ?? error}`);
    });
    database = await createTestDatabase('ap_image');
    port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
  }, 1_600_000);

  afterAll(async () => {
    await Promise.all(Object.values(containers).map((name) => docker('rm', '--force', '--volumes', name).catch(() => {})));
    if (database) await admin(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`).catch(() => {});
  }, 120_000);

  it('is built as the Dockerfile says: non-root, tini as init, a health check on /health/ready, port 3000', async () => {
    const { Config } = JSON.parse(await docker('image', 'inspect', IMAGE))[0];
    expect(Config.User).toBe('1000:1000');
    expect(Config.Entrypoint).toEqual(['/usr/bin/tini', '--']);
    expect(Config.Cmd).toEqual(['node', 'dist/main.js']);
    expect(Config.WorkingDir).toBe('/app');
    expect(Object.keys(Config.ExposedPorts)).toEqual(['3000/tcp']);
    expect(Config.Healthcheck.Test.join(' ')).toContain('/health/ready');
    expect(Config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'HOST=0.0.0.0', 'PORT=3000']));
  });

  it('serves the API and runs a signed event to COMPLETED in a worker container, then stops on SIGTERM with exit code 0', async () => {
    const env = [
      `DATABASE_URL=${database.url}`,
      `AGENT_PLATFORM_SECRET_KEY=${Buffer.alloc(32, 9).toString('base64')}`,
      `AGENT_PLATFORM_API_KEYS=alice@acme:${KEY}`,
      `PORT=${port}`,
      `AGENT_PLATFORM_PUBLIC_URL=${baseUrl}`,
      // No run waits on a grace here: the worker stops as soon as it has none.
      'AGENT_PLATFORM_SHUTDOWN_GRACE_MS=2000',
    ].flatMap((entry) => ['--env', entry]);
    // --network host: the engine runs with --iptables=false, so the host's PostgreSQL on loopback is
    // reached this way. The health check's interval shortened so its first check comes soon.
    await docker(
      'run',
      '--detach',
      '--name',
      containers.api,
      '--network',
      'host',
      '--health-interval',
      '1s',
      ...env,
      '--env',
      'AGENT_PLATFORM_EXECUTOR=off',
      IMAGE,
    );
    await docker('run', '--detach', '--name', containers.worker, '--network', 'host', '--no-healthcheck', ...env, IMAGE, 'node', 'dist/worker.js');

    const ready = await eventually(
      'the API container ready',
      async () => {
        const response = await fetch(`${baseUrl}/health/ready`);
        return response.status === 200 ? ((await response.json()) as { checks: Record<string, { status: string }> }) : undefined;
      },
      120_000,
      containers.api,
    );
    expect(ready.checks.storage?.status).toBe('ok');
    expect(ready.checks.migrations?.status).toBe('ok');
    await eventually(
      'the HEALTHCHECK healthy',
      async () => ((await inspect(containers.api)).State.Health.Status === 'healthy' ? true : undefined),
      60_000,
      containers.api,
    );
    await eventually(
      'the worker ready',
      async () => ((await logsOf(containers.worker)).includes('agent-platform worker ready') ? true : undefined),
      120_000,
      containers.worker,
    );

    // Only what runs: the deployed server, no build tools, no TypeScript sources of the server; as uid 1000 under tini.
    const listing = await docker(
      'exec',
      containers.api,
      'sh',
      '-c',
      'ls /app /app/dist; test ! -e /app/src && test ! -e /app/node_modules/.bin/tsup && echo lean; id -u; cat /proc/1/comm',
    );
    expect(listing.split('\n')).toEqual(expect.arrayContaining(['main.js', 'worker.js', 'agents', 'node_modules', 'lean', '1000', 'tini']));

    const api = apiClient(baseUrl, KEY);
    expect((await api('POST', '/api/automation/v1/webhooks', { name: 'Tracker', source: 'tracker', webhook_secret: WEBHOOK_SECRET })).status).toBe(201);
    const automation = await api('POST', '/api/automation/v1', {
      name: 'triage',
      trigger: { type: 'event', source: 'tracker', on: 'Issue' },
      instructions: 'Triage the issue from the image',
    });
    expect(automation.status).toBe(201);
    const body = JSON.stringify({ type: 'Issue', data: { title: 'Crash on start', nonce: suffix } });
    const delivery = await fetch(`${baseUrl}/api/automation/v1/events/acme/tracker`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}` },
    });
    expect(delivery.status).toBe(200);
    const runId = ((await delivery.json()) as { runs_created: string[] }).runs_created[0];
    expect(runId).toBeTruthy();

    const finished = await eventually(
      'the run finished',
      async () => {
        const { json } = await api('GET', `/api/automation/v1/runs/${runId}`);
        return ['PENDING', 'RUNNING'].includes(json.status) ? undefined : json;
      },
      120_000,
      containers.worker,
    );
    expect(finished.status, JSON.stringify(finished)).toBe('COMPLETED');
    const events = await api('GET', `/api/v1/app-conversations/${finished.conversation_id}/events`);
    const said = (events.json.items as Array<{ message?: string }>).map((item) => item.message ?? '').join('\n');
    expect(said).toContain('Task: Triage the issue from the image');

    for (const name of [containers.api, containers.worker]) {
      await docker('stop', '--time', '30', name);
      const state = (await inspect(name)).State;
      const logs = await logsOf(name);
      expect(state.ExitCode, `${name} exit code\n${logs}`).toBe(0);
      expect(logs).toMatch(/"signal":"SIGTERM"/);
      expect(logs).toMatch(/"msg":"stopped"/);
    }
  });

  it("starts Docker sandboxes through the host engine's socket, as docs/deploy.md shows, and removes them when stopped", async () => {
    // The image's user (uid 1000) opens the socket through its group, as `--group-add` in the docs.
    const socketGroup = (await run('stat', ['-c', '%g', '/var/run/docker.sock'])).stdout.trim();
    const sandboxPort = await freePort();
    await docker(
      'run',
      '--detach',
      '--name',
      containers.sandboxes,
      '--network',
      'host',
      '--volume',
      '/var/run/docker.sock:/var/run/docker.sock',
      '--group-add',
      socketGroup,
      ...[
        'AGENT_PLATFORM_STORAGE=memory',
        `PORT=${sandboxPort}`,
        `AGENT_PLATFORM_API_KEYS=alice@acme:${KEY}`,
        'AGENT_PLATFORM_SANDBOX=docker',
        `AGENT_PLATFORM_DOCKER_IMAGES=${TEST_IMAGE}`,
      ].flatMap((entry) => ['--env', entry]),
      IMAGE,
    );
    const url = `http://127.0.0.1:${sandboxPort}`;
    const ready = await eventually(
      'the container ready with the Docker runtime',
      async () => {
        const response = await fetch(`${url}/health/ready`);
        return response.status === 200 ? ((await response.json()) as { checks: Record<string, { status: string }> }) : undefined;
      },
      120_000,
      containers.sandboxes,
    );
    expect(ready.checks.runtime?.status).toBe('ok');
    const started = await apiClient(url, KEY)('POST', '/api/v1/sandboxes', {});
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    expect(started.json).toMatchObject({ status: 'RUNNING', image: TEST_IMAGE });
    const sandbox = `agent-platform-${started.json.id}`;
    expect((await inspect(sandbox)).State.Running).toBe(true);

    await docker('stop', '--time', '30', containers.sandboxes);
    expect((await inspect(containers.sandboxes)).State.ExitCode).toBe(0);
    // The stopped server removed the sandbox it had started.
    await expect(inspect(sandbox)).rejects.toThrow(/No such object/);
  });
});

if (missing !== null) describe('the container image', () => it.skip(missing, () => {}));
