/**
 * Runs the reference servers as a user would (a child process, configured by environment),
 * exercises the API over a real socket, and checks the logs never carry a secret and that
 * SIGTERM stops the server cleanly.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-key-0123456789abcdef';
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
const GITHUB_SECRET = 'e2e-github-secret-0000';
const GITHUB_TOKEN = 'ghp_e2e_token_2';

describe.each([
  ['examples/server', 'Fastify'],
  ['examples/express-server', 'Express'],
])('reference server %s (%s)', (dir) => {
  let server: RunningServer;
  // The GitHub event's repository is cloned before the agent starts: here, from a local git server.
  let git: GitServer;
  beforeAll(async () => {
    git = await startGitServer({ token: GITHUB_TOKEN });
    await git.createRepository('Codertocat/app');
    server = await startServer(dir, {
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
      AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
      AGENT_PLATFORM_PUBLIC_URL: 'https://hooks.example.com/',
      AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: `${GITHUB_SECRET},old-github-secret-0000`,
      AGENT_PLATFORM_GITHUB_LINKS: 'Codertocat=acme,12345=other-org',
    });
  }, 40_000);
  afterAll(async () => {
    if (server) await stopServer(server);
    await git?.close();
  });

  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(server.baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json().catch(() => undefined)) as any };
  };

  /** Streams left open by the live-events test, which the shutdown below must end. */
  let openStreams: { reader: ReadableStreamDefaultReader<Uint8Array>; socketClosed: Promise<number> } | undefined;

  it('redirects / to the console, with an empty body', async () => {
    const response = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/console');
    expect(await response.text()).toBe('');
  });

  it('streams a conversation’s events over SSE and over the socket', async () => {
    const started = await call('POST', '/api/v1/app-conversations', { initial_message: 'say hello' });
    expect(started.status).toBe(200);
    let conversationId: string | null = null;
    for (let i = 0; i < 400 && !conversationId; i++) {
      conversationId = (await call('GET', `/api/v1/app-conversations/start-tasks?ids=${started.json.id}`)).json[0].app_conversation_id;
      if (!conversationId) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const stream = await fetch(`${server.baseUrl}/api/v1/app-conversations/${conversationId}/events/stream`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('event: status\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/^retry: \d+\n\nid: 0\nevent: MessageEvent\ndata: \{/);
    const socket = new WebSocket(`${server.baseUrl.replace('http:', 'ws:')}/sockets/events/${conversationId}?resend_all=true&session_api_key=${KEY}`);
    const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data)) as Record<string, unknown>));
      socket.once('error', reject);
    });
    expect(first).toMatchObject({ id: expect.any(String), timestamp: expect.any(String), source: 'user', kind: 'MessageEvent' });
    openStreams = { reader, socketClosed: new Promise((resolve) => socket.once('close', (code) => resolve(code))) };
  });

  it('serves the API with the seeded key and keeps every secret out of the logs; SIGTERM exits 0', async () => {
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/api/settings`)).status).toBe(401);

    const secrets = ['sk-e2e-llm-secret-1', GITHUB_TOKEN, 'whsec_user_supplied_3'];
    expect((await call('POST', '/api/settings', { llm_api_key: secrets[0] })).status).toBe(200);
    expect((await call('POST', '/api/add-git-providers', { provider_tokens: { github: { token: secrets[1], host: git.url } } })).status).toBe(200);
    expect((await call('POST', '/api/automation/v1/webhooks', { name: 'a', source: 'src-a', webhook_secret: secrets[2] })).status).toBe(201);
    const generated = await call('POST', '/api/automation/v1/webhooks', { name: 'b', source: 'src-b' });
    expect(generated.json.webhook_url).toBe('https://hooks.example.com/api/automation/v1/events/acme/src-b');
    secrets.push(generated.json.webhook_secret);
    const created = await call('POST', '/api/keys', { name: 'e2e' });
    secrets.push(created.json.key);
    expect((await call('POST', '/api/settings', '{not json')).status).toBe(422);

    // GitHub: configured by environment, linked by account, matched, logged.
    const automation = await call('POST', '/api/automation/v1', {
      name: 'bugs',
      trigger: { type: 'event', source: 'github', on: 'issues.*', filter: "icontains(issue.title, 'crash')" },
      instructions: 'fix it',
    });
    expect(automation.status).toBe(201);
    const body = JSON.stringify({
      action: 'opened',
      issue: { title: 'App CRASHES on start' },
      repository: { full_name: 'Codertocat/app', owner: { login: 'Codertocat' } },
    });
    const delivery = await fetch(`${server.baseUrl}/api/automation/v1/events/github`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issues',
        'x-github-delivery': 'e2e-1',
        'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`,
      },
    });
    const ingested = (await delivery.json()) as { matched: number; delivery_id: string };
    expect(ingested.matched).toBe(1);
    const log = await call('GET', `/api/automation/v1/deliveries/${ingested.delivery_id}`);
    expect(log.json).toMatchObject({ event_key: 'issues.opened', status: 'matched' });
    secrets.push(GITHUB_SECRET);

    // The run executes in a local sandbox with the demo agent, and completes.
    let run: { status: string; conversation_id: string | null } = { status: 'PENDING', conversation_id: null };
    for (let i = 0; i < 200 && !['COMPLETED', 'FAILED'].includes(run.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = (await call('GET', `/api/automation/v1/${automation.json.id}/runs`)).json.runs[0];
    }
    expect(run.status).toBe('COMPLETED');
    expect(run.conversation_id).toEqual(expect.any(String));

    const code = await stopServer(server);
    expect(code).toBe(0);
    // Open event streams did not hold the shutdown, and were ended by it.
    if (openStreams) {
      expect(await openStreams.socketClosed).toBe(1001);
      expect((await openStreams.reader.read().catch(() => ({ done: true }))).done).toBe(true);
    }
    const logs = server.output.join('');
    expect(logs).toMatch(/stopped/);
    for (const secret of [...secrets, KEY, SECRET_KEY]) expect(logs).not.toContain(secret);
  });
});

describe('reference server configuration errors', () => {
  it('refuses a bad secret key without echoing it', async () => {
    const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'src/main.ts'], {
      cwd: path.join(root, 'examples/server'),
      env: { ...process.env, PORT: '0', AGENT_PLATFORM_SECRET_KEY: 'too-short-to-be-a-key', AGENT_PLATFORM_API_KEYS: 'alice:short' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(output).toMatch(/AGENT_PLATFORM_/);
    expect(output).not.toContain('too-short-to-be-a-key');
  }, 30_000);
});
