/**
 * Every 2xx answer of the real handler is what its route declares: the JSON body parses with
 * the route's success response schema (what typed clients infer their return types from), and
 * parsing drops nothing (a field the schema does not describe would be stripped, and differ).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import type { z } from 'zod';
import { allRoutes } from './handler.js';
import { responseKind } from './routing/response-kind.js';
import { Router } from './routing/router.js';
import { openApiRoute } from './routes/system-routes.js';
import { registerWebhook, sendEvent } from '../test-support/events.js';
import { startHarness, type ApiResponse, type Harness, type RequestOptions } from '../test-support/harness.js';

const router = new Router([...allRoutes(), openApiRoute]);
/** `METHOD /path` of every route answered 2xx and checked. */
const checked = new Set<string>();

/** The answer's body checked against its route's declared schema for that status. */
function check(method: string, path: string, answer: ApiResponse): void {
  if (answer.status < 200 || answer.status >= 300) return;
  const match = router.match(method, path.split('?')[0] as string);
  if (match.kind !== 'found') throw new Error(`no route for ${method} ${path}`);
  const { route } = match;
  const doc = route.responses[answer.status];
  expect(doc, `${method} ${route.path} answered ${answer.status}, which it does not declare`).toBeDefined();
  checked.add(`${route.method} ${route.path}`);
  const kind = responseKind(doc);
  if (kind === 'text' || kind === 'binary') {
    // Not JSON (a file's text, a zip): sent with the declared content type, nothing to parse.
    const declared = doc?.contentType?.split(';')[0]?.trim();
    expect(answer.headers.get('content-type')?.split(';')[0]?.trim(), `${method} ${route.path}: its content type`).toBe(declared);
    return;
  }
  if (!doc?.schema) {
    expect(answer.text, `${method} ${route.path}: no body declared`).toBe('');
    return;
  }
  if (kind === 'stream') return;
  const parsed = (doc.schema as z.ZodType).safeParse(answer.json);
  expect(parsed.error, `${method} ${route.path} ${answer.status}: ${answer.text.slice(0, 500)}`).toBeUndefined();
  // Nothing undeclared: parsing strips unknown keys, so the parse would differ from the body.
  expect(parsed.data, `${method} ${route.path}: fields the schema does not describe`).toEqual(answer.json);
}

const AGENT = ['echo "task: $AGENT_PLATFORM_INSTRUCTIONS"', `echo '{"kind":"tool_call","tool":"ls"}'`].join('; ');

describe('2xx answers match the routes’ declared response schemas', () => {
  let api: Harness;
  let runtime: SandboxRuntime;
  const call = async (method: string, path: string, init?: RequestOptions) => {
    const answer = await api.request(method, path, init);
    check(method, path, answer);
    return answer;
  };
  const ok = async (method: string, path: string, init?: RequestOptions) => {
    const answer = await call(method, path, init);
    expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 300)}`).toBeLessThan(300);
    return answer;
  };

  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness('fastify', { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
  });
  afterAll(async () => {
    await api?.close();
    await runtime?.close();
  });

  it('system, settings and API keys', async () => {
    await ok('GET', '/health', { as: null });
    await ok('GET', '/ready', { as: null });
    await ok('GET', '/health/live', { as: null });
    await ok('GET', '/health/ready', { as: null });
    await ok('GET', '/openapi.json', { as: null });
    await ok('POST', '/api/settings', {
      json: { llm_model: 'demo/model', llm_api_key: 'sk-secret', mcp_config: { sse_servers: [{ url: 'https://mcp.example.com', api_key: 'mcp-secret' }] } },
    });
    await ok('GET', '/api/settings');
    await ok('POST', '/api/add-git-providers', { json: { provider_tokens: { github: { token: 'ghp_secret' } } } });
    await ok('GET', '/api/settings');
    await ok('POST', '/api/unset-provider-tokens', { json: {} });
    const key = await ok('POST', '/api/keys', { json: { name: 'ci' } });
    await ok('GET', '/api/keys');
    await ok('DELETE', `/api/keys/${key.json.id}`);
  });

  it('webhooks, events, deliveries, automations and runs', async () => {
    const webhook = await registerWebhook(api, { name: 'hooks', source: 'shop' });
    await ok('GET', '/api/automation/v1/webhooks');
    await ok('GET', `/api/automation/v1/webhooks/${webhook.id}`);
    await ok('PATCH', `/api/automation/v1/webhooks/${webhook.id}`, { json: { name: 'renamed' } });
    const created = await ok('POST', '/api/automation/v1/webhooks', { json: { name: 'generated', source: 'generated' } });
    const rotated = await ok('POST', `/api/automation/v1/webhooks/${created.json.id}/rotate-secret`, { json: {} });
    expect(rotated.json.webhook_secret).toEqual(expect.any(String));
    await ok('DELETE', `/api/automation/v1/webhooks/${created.json.id}`);

    const automation = await ok('POST', '/api/automation/v1', {
      json: { name: 'on order', trigger: { type: 'event', source: 'shop', on: 'order.created' }, instructions: 'act' },
    });
    const id = automation.json.id as string;
    await ok('GET', '/api/automation/v1');
    await ok('GET', `/api/automation/v1/${id}`);
    await ok('PATCH', `/api/automation/v1/${id}`, { json: { instructions: 'act now' } });

    const event = await sendEvent(api, 'acme', 'shop', { type: 'order.created', id: 'evt_1' }, { secret: webhook.secret });
    check('POST', '/api/automation/v1/events/acme/shop', event);
    expect(event.status).toBe(200);
    const deliveries = await ok('GET', '/api/automation/v1/deliveries');
    const deliveryId = deliveries.json.deliveries[0].id as string;
    await ok('GET', `/api/automation/v1/deliveries/${deliveryId}`);
    await ok('GET', '/api/automation/v1/deliveries?source=shop&limit=5');
    await call('POST', `/api/automation/v1/deliveries/${deliveryId}/replay`);

    const run = await ok('POST', `/api/automation/v1/${id}/dispatch`, { json: { payload: { type: 'manual' } } });
    await ok('GET', `/api/automation/v1/${id}/runs`);
    await ok('GET', `/api/automation/v1/runs/${run.json.id}`);
    await call('POST', `/api/automation/v1/runs/${run.json.id}/cancel`);
    await api.platform.conversations.settled();
    await ok('DELETE', `/api/automation/v1/${id}`);
  });

  it('sandboxes, app conversations and the agent-server subset', async () => {
    await ok('GET', '/api/v1/sandbox-specs/search');
    const sandbox = await ok('POST', '/api/v1/sandboxes', { json: {} });
    const sandboxId = sandbox.json.id as string;
    await ok('POST', `/api/v1/sandboxes/${sandboxId}/pause`);
    await ok('GET', `/api/v1/sandboxes?id=${sandboxId}&id=sbx_unknown`);
    await ok('POST', `/api/v1/sandboxes/${sandboxId}/resume`, { json: {} });
    await ok('GET', '/api/v1/sandboxes/search?limit=10');
    await ok('DELETE', `/api/v1/sandboxes/${sandboxId}`);

    const started = await ok('POST', '/api/v1/app-conversations', { json: { initial_message: 'list the files', title: 'files' } });
    let task: { status: string; app_conversation_id: string; sandbox_id: string } | undefined;
    for (let i = 0; i < 400 && task?.status !== 'READY' && task?.status !== 'ERROR'; i++) {
      task = (await ok('GET', `/api/v1/app-conversations/start-tasks?ids=${started.json.id}`)).json[0];
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(task?.status).toBe('READY');
    await api.platform.conversations.settled();
    const conversationId = task!.app_conversation_id;
    for await (const _ of runtime.exec(task!.sandbox_id, { command: 'printf "checked\\n" > checked.txt' }));
    const file = await ok('GET', `/api/v1/app-conversations/${conversationId}/file?file_path=checked.txt`);
    expect(file.text).toBe('checked\n');
    await ok('GET', '/api/v1/app-conversations/start-tasks/search');
    await ok('GET', '/api/v1/app-conversations');
    await ok('GET', `/api/v1/app-conversations?ids=${conversationId}&ids=conv_unknown`);
    await ok('GET', '/api/v1/app-conversations/search?limit=5');
    await ok('GET', `/api/v1/app-conversations/${conversationId}`);
    await ok('GET', `/api/v1/app-conversations/${conversationId}/events`);

    await ok('GET', `/api/conversations/${conversationId}`);
    const events = await ok('GET', `/api/conversations/${conversationId}/events/search`);
    expect(events.json.items.length).toBeGreaterThan(0);
    await ok('GET', `/api/conversations/${conversationId}/events/count`);
    await ok('GET', `/api/conversations/${conversationId}/agent_final_response`);
    await call('POST', `/api/conversations/${conversationId}/pause`);
    await api.platform.conversations.settled();

    // The OpenHands app-server endpoints, the text and binary answers among them.
    await ok('GET', '/api/keys/current');
    await ok('GET', '/api/v1/settings');
    await ok('POST', '/api/v1/settings', { json: { conversation_settings_diff: { max_iterations: 5 } } });
    await ok('GET', '/api/v1/settings/agent-schema');
    await ok('GET', '/api/v1/settings/conversation-schema');
    await ok('POST', '/api/v1/secrets', { json: { name: 'CHECKED', value: 'v' } });
    await ok('GET', '/api/v1/secrets/search');
    await ok('PUT', '/api/v1/secrets/CHECKED', { json: { name: 'CHECKED', description: 'd' } });
    await ok('DELETE', '/api/v1/secrets/CHECKED');
    await ok('PATCH', `/api/v1/app-conversations/${conversationId}`, { json: { title: 'checked' } });
    const zip = await ok('GET', `/api/v1/app-conversations/${conversationId}/download`);
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="conversation_${conversationId}.zip"`);
    await ok('GET', '/api/automation/health', { as: null });
    await ok('POST', '/api/automation/v1/preset/prompt', { json: { name: 'n', prompt: 'p', trigger: { type: 'event', source: 'github', on: 'push' } } });
    await ok('DELETE', `/api/v1/app-conversations/${conversationId}`);
  });

  it('checked a good sample of the routes', () => {
    // Not every route: some need a state that takes long to reach (a confirmation held), GitHub
    // configured, or answer a stream. A new route is worth a step above.
    expect(checked.size).toBeGreaterThanOrEqual(45);
    for (const route of [
      'GET /api/settings',
      'POST /api/automation/v1',
      'GET /api/automation/v1/runs/{run_id}',
      'GET /api/v1/app-conversations',
      'GET /api/conversations/{id}/events/search',
      'GET /api/v1/app-conversations/{id}/download',
      'GET /api/v1/app-conversations/{id}/file',
    ]) {
      expect(checked, route).toContain(route);
    }
  });
});
