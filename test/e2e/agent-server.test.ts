/**
 * The agent-server subset through the reference server, with the built-in agent and
 * the fake LLM: a two-message conversation whose second answer uses the first; a
 * confirmation-mode conversation accepted once and rejected once; pause and run.
 */
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { createClient } from '@agent-platform/client';
import WebSocket from 'ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiCall } from './support/http-api.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-agent-server-key-0123456789';
const LLM_KEY = 'sk-e2e-agent-server-llm-key-77';

const messagesOf = (request: RecordedLlmRequest) => request.body.messages as { role: string; content: unknown }[];
const taskOf = (request: RecordedLlmRequest) => /task:([a-z]+)/.exec(JSON.stringify(messagesOf(request).find((m) => m.role === 'user')?.content ?? ''))?.[1];
const stepOf = (request: RecordedLlmRequest) => messagesOf(request).filter((message) => message.role === 'assistant').length;
const terminal = (command: string): FakeLlmTurn => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] });

function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const text = JSON.stringify(messagesOf(request));
  switch (taskOf(request)) {
    case 'chat':
      // The answer to the follow-up needs the first message.
      if (text.includes('what is my name'))
        return { text: /my name is (\w+)/.exec(text) ? `Your name is ${/my name is (\w+)/.exec(text)![1]}.` : 'I do not know.' };
      return { text: 'Noted.' };
    case 'confirm':
      return (
        [terminal('echo first-command'), terminal('echo second-command'), { toolCalls: [{ name: 'finish', arguments: { message: 'done confirming' } }] }][
          stepOf(request)
        ] ?? { text: 'done' }
      );
    case 'long':
      return terminal('sleep 0.3 && echo step');
    default:
      return { text: 'no script' };
  }
}

describe('the agent-server subset', () => {
  let server: RunningServer;
  let llm: FakeLlmServer;
  const api: ApiCall = (method, route, body) => apiClient(server.baseUrl, KEY)(method, route, body);
  const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
    let value = await read();
    for (let i = 0; i < 400 && !done(value); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      value = await read();
    }
    if (!done(value)) throw new Error(`${what}: ${JSON.stringify(value)}`);
    return value;
  };
  const status = (id: string) => () => api('GET', `/api/conversations/${id}`).then((answer) => answer.json.execution_status as string);
  const start = async (message: unknown) => {
    const task = (await api('POST', '/api/v1/app-conversations', { initial_message: message })).json;
    const ready = await until(
      () => api('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`).then((answer) => answer.json[0]),
      (current) => ['READY', 'ERROR'].includes(current.status),
      'start task',
    );
    expect(ready.status).toBe('READY');
    // The start task names the platform as the agent server; the conversation, its URL there.
    expect(ready.agent_server_url).toMatch(/^http:\/\/[^/]+$/);
    const conversation = (await api('GET', `/api/v1/app-conversations/${ready.app_conversation_id}`)).json;
    expect(conversation.conversation_url).toBe(`${ready.agent_server_url}/api/conversations/${ready.app_conversation_id}`);
    return ready.app_conversation_id as string;
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    server = await startServer('examples/server', { AGENT_PLATFORM_SANDBOX: 'process', AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}` });
    expect((await api('POST', '/api/settings', { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1` })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    if (server) expect(await stopServer(server)).toBe(0);
    await llm?.close();
  }, 60_000);

  it("takes OpenHands' SendMessageRequest as the first message, and a follow-up resumes the agent with the whole history", async () => {
    const id = await start({ role: 'user', content: [{ type: 'text', text: 'task:chat my name is Ada' }], run: true });
    expect(await until(status(id), (value) => value === 'finished', 'first answer')).toBe('finished');
    expect((await api('GET', `/api/conversations/${id}/agent_final_response`)).json).toEqual({ response: 'Noted.' });

    expect(
      (await api('POST', `/api/conversations/${id}/events`, { role: 'user', content: [{ type: 'text', text: 'what is my name?' }], run: true })).json,
    ).toEqual({ success: true });
    await until(
      () => api('GET', `/api/conversations/${id}/agent_final_response`).then((answer) => answer.json.response as string),
      (response) => response !== 'Noted.',
      'second answer',
    );
    expect((await api('GET', `/api/conversations/${id}/agent_final_response`)).json).toEqual({ response: 'Your name is Ada.' });
    expect(await status(id)()).toBe('finished');

    const events = (await api('GET', `/api/conversations/${id}/events/search?limit=100`)).json.items as any[];
    const messages = events.filter((event) => event.kind === 'MessageEvent').map((event) => [event.source, event.llm_message.content[0].text]);
    expect(messages).toEqual([
      ['user', 'task:chat my name is Ada'],
      ['agent', 'Noted.'],
      ['user', 'what is my name?'],
      ['agent', 'Your name is Ada.'],
    ]);
    // The agent-server shape: flat, with timestamp.
    expect(events[0]).toMatchObject({ id: expect.any(String), timestamp: expect.any(String), source: 'user', kind: 'MessageEvent' });
    expect((await api('GET', `/api/conversations/${id}/events/count`)).json).toBe(events.length);
  });

  it('a follow-up without run is stored and waits; run takes it up', async () => {
    const id = await start('task:chat my name is Grace');
    await until(status(id), (value) => value === 'finished', 'first answer');
    await api('POST', `/api/conversations/${id}/events`, { content: 'what is my name?' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await status(id)()).toBe('finished');
    expect((await api('POST', `/api/conversations/${id}/run`)).status).toBe(200);
    await until(
      () => api('GET', `/api/conversations/${id}/agent_final_response`).then((answer) => answer.json.response as string),
      (response) => response === 'Your name is Grace.',
      'answer after run',
    );
  });

  it('in confirmation mode each action waits for the user: accepted once, rejected once', async () => {
    await api('POST', '/api/settings', { confirmation_mode: true });
    try {
      const id = await start('task:confirm run two commands');
      expect(await until(status(id), (value) => value === 'waiting_for_confirmation', 'first hold')).toBe('waiting_for_confirmation');
      expect((await api('POST', `/api/conversations/${id}/events/respond_to_confirmation`, { accept: true })).json).toEqual({ success: true });
      await until(
        () => api('GET', `/api/conversations/${id}/events/search?limit=100`).then((answer) => answer.json.items as any[]),
        (events) => events.filter((event) => event.kind === 'ActionEvent').length === 2,
        'second action',
      );
      await until(status(id), (value) => value === 'waiting_for_confirmation', 'second hold');
      await api('POST', `/api/conversations/${id}/events/respond_to_confirmation`, { accept: false, reason: 'not that one' });
      await until(status(id), (value) => value === 'finished', 'finish');
      const events = (await api('GET', `/api/conversations/${id}/events/search?limit=100`)).json.items as any[];
      const observation = events.find((event) => event.kind === 'ObservationEvent' && event.tool_name === 'terminal');
      expect(observation.observation.content[0].text).toContain('first-command');
      expect(events.find((event) => event.kind === 'UserRejectObservation')).toMatchObject({ rejection_reason: 'not that one', source: 'user' });
      expect(JSON.stringify(events)).not.toContain('second-command\\n');
      const states = events.filter((event) => event.kind === 'ConversationStateUpdateEvent').map((event) => event.value);
      expect(states).toEqual(['waiting_for_confirmation', 'running', 'waiting_for_confirmation', 'running', 'finished']);
      // Nothing waits any more.
      expect((await api('POST', `/api/conversations/${id}/events/respond_to_confirmation`, { accept: true })).status).toBe(409);
    } finally {
      await api('POST', '/api/settings', { confirmation_mode: false });
    }
  });

  it('pause stops the agent after its step; run takes it up again', async () => {
    const id = await start('task:long keep going');
    await until(
      () => api('GET', `/api/conversations/${id}/events/count`).then((answer) => answer.json as number),
      (count) => count >= 4,
      'agent under way',
    );
    expect((await api('POST', `/api/conversations/${id}/pause`)).json).toEqual({ success: true });
    expect(await until(status(id), (value) => value === 'paused', 'paused')).toBe('paused');
    const events = (await api('GET', `/api/conversations/${id}/events/search?limit=100`)).json.items as any[];
    expect(events.some((event) => event.kind === 'PauseEvent')).toBe(true);
    expect((await api('POST', `/api/conversations/${id}/run`)).status).toBe(200);
    expect(await status(id)()).toBe('running');
    expect((await api('POST', `/api/conversations/${id}/run`)).status).toBe(409);
    await api('POST', `/api/conversations/${id}/pause`);
    await until(status(id), (value) => value === 'paused', 'paused again');
  });

  it('answers 404 for a conversation that is not the caller’s, and 422 for a message without text', async () => {
    expect((await api('GET', '/api/conversations/conv_nope')).status).toBe(404);
    expect((await api('POST', '/api/conversations/conv_nope/events', { content: 'hi' })).status).toBe(404);
    const id = await start('task:chat my name is Bob');
    expect((await api('POST', `/api/conversations/${id}/events`, { content: [] })).status).toBe(422);
  });

  it('the client drives it: send, finalResponse, pause, run', async () => {
    const client = createClient({ baseUrl: server.baseUrl, apiKey: KEY });
    const ready = await client.conversations.waitUntilReady((await client.conversations.start({ initial_message: 'task:chat my name is Linus' })).id);
    const id = ready.app_conversation_id;
    await until(
      () => client.conversations.get(id),
      (conversation) => conversation.execution_status === 'finished',
      'first answer',
    );
    expect(await client.conversations.finalResponse(id)).toBe('Noted.');
    expect(await client.conversations.send(id, 'what is my name?', { run: true })).toEqual({ success: true });
    await until(
      () => client.conversations.finalResponse(id),
      (response) => response === 'Your name is Linus.',
      'second answer',
    );
    await expect(client.conversations.respond(id, { accept: true })).rejects.toMatchObject({ status: 409 });

    // The live stream: the stored events, then a follow-up's as they are stored.
    const seen: { seq: number; kind: string }[] = [];
    let statuses = 0;
    const follow = client.conversations.send(id, 'what is my name?', { run: true });
    for await (const event of client.conversations.stream(id)) {
      seen.push({ seq: event.seq, kind: event.kind });
      if (event.kind === 'status' && ++statuses === 3) break;
    }
    await follow;
    expect(seen.map((event) => event.seq)).toEqual(seen.map((_, index) => index));
    expect(seen.filter((event) => event.kind === 'MessageEvent').length).toBe(6);
  });

  it("the conversation's sandbox session key authenticates for that conversation only", async () => {
    const id = await start('task:chat my name is Kay');
    const other = await start('task:chat my name is Jo');
    const conversation = (await api('GET', `/api/conversations/${id}`)).json;
    const sandbox = (await api('GET', `/api/v1/sandboxes?id=${conversation.sandbox_id}`)).json[0];
    const withKey = (route: string) => fetch(server.baseUrl + route, { headers: { 'x-session-api-key': sandbox.session_api_key } });
    expect((await withKey(`/api/conversations/${id}`)).status).toBe(200);
    expect((await withKey(`/api/conversations/${id}/events/count`)).status).toBe(200);
    expect((await withKey(`/api/conversations/${other}`)).status).toBe(401);
    expect((await withKey('/api/settings')).status).toBe(401);
    expect((await withKey(`/api/v1/app-conversations/${id}`)).status).toBe(401);
  });

  it('the WebSocket streams events in the agent-server shape and takes a user message that the agent answers', async () => {
    const id = await start('task:chat my name is Ines');
    await until(status(id), (value) => value === 'finished', 'first answer');
    const socket = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/sockets/events/${id}?resend_all=true&session_api_key=${KEY}`);
    const received: any[] = [];
    const answered = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        const event = JSON.parse(String(data));
        received.push(event);
        if (event.kind === 'MessageEvent' && event.source === 'agent' && /Ines/.test(event.llm_message.content[0].text)) resolve();
      }),
    );
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'what is my name?' }] }));
    await answered;
    socket.close();
    expect(received[0]).toMatchObject({ kind: 'MessageEvent', source: 'user', timestamp: expect.any(String) });
    expect(received.map((event) => event.llm_message?.content[0].text).filter(Boolean)).toContain('Your name is Ines.');
  });
});

describe('a conversation across a restart (embedded PGlite)', () => {
  it('a follow-up after the server restarted resumes the agent with the stored history, in a fresh sandbox', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'agent-server-restart-'));
    const llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
    const env = {
      AGENT_PLATFORM_STORAGE: 'pglite',
      AGENT_PLATFORM_DATA_DIR: dataDir,
      AGENT_PLATFORM_SANDBOX: 'process',
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
    };
    const call = (baseUrl: string) => async (method: string, route: string, body?: unknown) => {
      const response = await fetch(baseUrl + route, {
        method,
        headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json().catch(() => undefined)) as any;
    };
    const waitFor = async (read: () => Promise<any>, done: (value: any) => boolean) => {
      for (let i = 0; i < 400; i++) {
        const value = await read();
        if (done(value)) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('timed out');
    };
    try {
      const first = await startServer('examples/server', env);
      const api1 = call(first.baseUrl);
      await api1('POST', '/api/settings', { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY, llm_base_url: `${llm.url}/v1` });
      const task = await api1('POST', '/api/v1/app-conversations', { initial_message: 'task:chat my name is Ada' });
      const ready = await waitFor(
        () => api1('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`).then((tasks) => tasks[0]),
        (current) => current.status === 'READY',
      );
      const id = ready.app_conversation_id;
      await waitFor(
        () => api1('GET', `/api/conversations/${id}`),
        (conversation) => conversation.execution_status === 'finished',
      );
      expect(await stopServer(first)).toBe(0);

      const second = await startServer('examples/server', env);
      try {
        const api2 = call(second.baseUrl);
        expect(await api2('POST', `/api/conversations/${id}/events`, { content: 'what is my name?', run: true })).toEqual({ success: true });
        await waitFor(
          () => api2('GET', `/api/conversations/${id}/agent_final_response`),
          (answer) => answer.response === 'Your name is Ada.',
        );
        const conversation = await api2('GET', `/api/conversations/${id}`);
        expect(conversation).toMatchObject({ execution_status: 'finished', sandbox_status: 'RUNNING' });
        expect(conversation.sandbox_id).not.toBe(ready.sandbox_id);
      } finally {
        expect(await stopServer(second)).toBe(0);
      }
    } finally {
      await llm.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
