/**
 * The owner's sandbox image through the reference server, as a host and an owner meet it: the
 * host lists the images owners may pick (`AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES`), an owner saves
 * one in their settings (another is a 422 with the list), and their conversation's sandbox runs
 * it — seen from inside by the agent, in the conversation's note and on the sandbox. On the
 * process runtime, which runs no images, saving one is a 422 that says so.
 *
 * Docker: in CI (`.ci/run` starts an engine and builds the test image) this must run, not skip.
 */
import Dockerode from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { serverRuntimes, TEST_IMAGE } from './support/runtimes.js';

const KEY = 'e2e-owner-image-key-0123456789';
const SECRET_KEY = Buffer.alloc(32, 11).toString('base64');
// Made here from the test image (nothing can be pulled): only a sandbox of it has the marker.
const OWNER_IMAGE = 'agent-platform/owner-image-e2e:test';
// biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion in a shell script, not a template
const AGENT = 'echo "marker: $(cat /etc/owner-marker 2>/dev/null || echo none) ${OWNER_MARKER:-unset}"';

const runtimes = await serverRuntimes('the owner’s image on docker');
const onDocker = runtimes.some((runtime) => runtime.name === 'docker');

async function buildOwnerImage(docker: Dockerode): Promise<void> {
  const container = await docker.createContainer({ Image: TEST_IMAGE, Entrypoint: ['/bin/sh', '-c'], Cmd: ['echo owner-made > /etc/owner-marker'] });
  try {
    await container.start();
    await container.wait();
    const [repo, tag] = OWNER_IMAGE.split(':') as [string, string];
    await container.commit({ repo, tag, changes: ['ENV OWNER_MARKER=owner-env'] });
  } finally {
    await container.remove({ force: true });
  }
}

function client(server: () => RunningServer) {
  return async (method: string, route: string, body?: unknown) => {
    const response = await fetch(server().baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json().catch(() => undefined)) as any };
  };
}

describe('the owner’s image on the process runtime', () => {
  it('is a 422 saying the runtime cannot run a chosen image', async () => {
    const server = await startServer('examples/server', { AGENT_PLATFORM_SANDBOX: 'process', AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}` });
    try {
      const call = client(() => server);
      const refused = await call('POST', '/api/settings', { sandbox_base_container_image: 'python:3.12' });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.json)).toContain("this platform's sandbox runtime (process) cannot run a chosen image");
      expect((await call('POST', '/api/settings', { sandbox_base_container_image: null, user_consents_to_analytics: true })).status).toBe(200);
      expect((await call('GET', '/api/settings')).json).toMatchObject({ sandbox_base_container_image: null, user_consents_to_analytics: true });
    } finally {
      expect(await stopServer(server)).toBe(0);
    }
  }, 90_000);
});

describe.runIf(onDocker)('the owner’s image on the docker runtime', () => {
  const docker = new Dockerode();
  let server: RunningServer;
  const call = client(() => server);

  beforeAll(async () => {
    await buildOwnerImage(docker);
    server = await startServer('examples/server', {
      AGENT_PLATFORM_SANDBOX: 'docker',
      AGENT_PLATFORM_DOCKER_IMAGES: TEST_IMAGE,
      AGENT_PLATFORM_SANDBOX_ALLOWED_IMAGES: 'agent-platform/owner-image-e2e:*',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_AGENT_COMMAND: AGENT,
      AGENT_PLATFORM_BUILTIN_AGENT: 'off',
    });
  }, 90_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await docker
      .getImage(OWNER_IMAGE)
      .remove({ force: true })
      .catch(() => undefined);
  }, 60_000);

  it('an image outside the host’s list is a 422 with the list; an allowed one is kept', async () => {
    const refused = await call('POST', '/api/settings', { sandbox_runtime_container_image: 'docker.io/evil/miner:latest' });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toEqual([
      {
        loc: ['body', 'sandbox_runtime_container_image'],
        msg: `sandbox_runtime_container_image: "docker.io/evil/miner:latest" is not an image this platform allows; the allowed images are: ${TEST_IMAGE}, agent-platform/owner-image-e2e:*`,
        type: 'enum',
      },
    ]);
    const v1 = await call('POST', '/api/v1/settings', { sandbox_base_container_image: 'ubuntu:24.04' });
    expect(v1.status).toBe(422);
    expect((await call('POST', '/api/settings', { sandbox_runtime_container_image: OWNER_IMAGE })).status).toBe(200);
    expect((await call('GET', '/api/settings')).json.sandbox_runtime_container_image).toBe(OWNER_IMAGE);
  });

  it('the owner’s conversation runs in their image: the agent sees it, the conversation notes it, the sandbox says it', async () => {
    expect((await call('POST', '/api/settings', { sandbox_runtime_container_image: OWNER_IMAGE })).status).toBe(200);
    const task = (await call('POST', '/api/v1/app-conversations', { initial_message: 'show the marker' })).json;
    let current = task;
    for (let i = 0; i < 600 && !['READY', 'ERROR'].includes(current.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = (await call('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`)).json[0];
    }
    expect(current).toMatchObject({ status: 'READY', sandbox_id: expect.any(String) });
    let messages: string[] = [];
    for (let i = 0; i < 600 && !messages.some((message) => message?.startsWith('marker:')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      messages = (await call('GET', `/api/v1/app-conversations/${current.app_conversation_id}/events`)).json.items.map((event: any) => event.message);
    }
    expect(messages).toContain('marker: owner-made owner-env');
    expect(messages).toContain(`the sandbox runs the owner's image ${OWNER_IMAGE}`);
    const sandbox = (await call('GET', `/api/v1/sandboxes?id=${current.sandbox_id}`)).json[0];
    expect(sandbox).toMatchObject({ image: OWNER_IMAGE, sandbox_spec_id: TEST_IMAGE });
    expect((await call('DELETE', `/api/v1/sandboxes/${current.sandbox_id}`)).json).toEqual({ success: true });
  });

  it('without an image of their own, the spec’s runs (no marker)', async () => {
    expect((await call('POST', '/api/settings', { sandbox_runtime_container_image: '' })).status).toBe(200);
    const sandbox = (await call('POST', '/api/v1/sandboxes', {})).json;
    expect(sandbox).toMatchObject({ status: 'RUNNING', image: TEST_IMAGE });
    expect((await call('DELETE', `/api/v1/sandboxes/${sandbox.id}`)).json).toEqual({ success: true });
  });
});
