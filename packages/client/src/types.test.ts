/**
 * Type tests for the public surface. They are checked by `tsc` (`pnpm typecheck`, and the build
 * project's type-check test): a client type that drifts from the server's schemas fails to compile.
 * At run time `expectTypeOf` does nothing; the `it` blocks only give the checks names.
 */
import type { z } from 'zod';
import type {
  appConversationSchema,
  automationCreateInputSchema,
  automationListSchema,
  automationSchema,
  createdWebhookSchema,
  deliverySchema,
  ingestResultSchema,
  runSchema,
  sandboxSchema,
  settingsInputSchema,
  settingsViewSchema,
  startTaskSchema,
  webhookCreateInputSchema,
  ErrorCode,
  ValidationIssue,
} from '@agent-platform/core/schemas';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createClient,
  isAgentEvent,
  type ApiRoutes,
  type AppConversation,
  type AuditEntry,
  type AuditPage,
  type AuditVerification,
  type AutomationHealth,
  type BinaryRouteKey,
  type CurrentApiKey,
  type CustomSecret,
  type CustomSecretPage,
  type JsonRouteKey,
  type MessageResponse,
  type RequestRouteKey,
  type RouteResponseType,
  type RouteRole,
  type TextRouteKey,
  type AgentPlatformError,
  type AgentPlatformErrorCode,
  type AppConversationPage,
  type Automation,
  type AutomationList,
  type CallOptions,
  type ConversationEvent,
  type MetricsSnapshot,
  type OutboundMessage,
  type Subscription,
  type SubscriptionWithSecret,
  type ReadyStartTask,
  type RouteInit,
  type RouteKey,
  type RouteQuery,
  type RouteResponse,
  type Run,
  type SandboxPage,
  type StreamRouteKey,
} from './index.js';

const client = createClient({ baseUrl: 'http://localhost:3000' });
type Client = typeof client;

describe('types', () => {
  it('requests are the schemas’ input types', () => {
    expectTypeOf<Parameters<Client['settings']['store']>[0]>().toEqualTypeOf<z.input<typeof settingsInputSchema>>();
    expectTypeOf<Parameters<Client['webhooks']['register']>[0]>().toEqualTypeOf<z.input<typeof webhookCreateInputSchema>>();
    expectTypeOf<Parameters<Client['automations']['create']>[0]>().toEqualTypeOf<z.input<typeof automationCreateInputSchema>>();
  });

  it('answers are the schemas’ output types', () => {
    expectTypeOf(client.settings.get).returns.resolves.toEqualTypeOf<z.infer<typeof settingsViewSchema>>();
    expectTypeOf(client.webhooks.register).returns.resolves.toEqualTypeOf<z.infer<typeof createdWebhookSchema>>();
    expectTypeOf(client.automations.get).returns.resolves.toEqualTypeOf<z.infer<typeof automationSchema>>();
    expectTypeOf(client.automations.dispatch).returns.resolves.toEqualTypeOf<z.infer<typeof runSchema>>();
    expectTypeOf(client.automations.waitForRun).returns.resolves.toEqualTypeOf<z.infer<typeof runSchema>>();
    expectTypeOf(client.deliveries.get).returns.resolves.toEqualTypeOf<z.infer<typeof deliverySchema>>();
    expectTypeOf(client.events.send).returns.resolves.toEqualTypeOf<z.infer<typeof ingestResultSchema>>();
    expectTypeOf(client.conversations.start).returns.resolves.toEqualTypeOf<z.infer<typeof startTaskSchema>>();
    expectTypeOf(client.sandboxes.search).returns.resolves.toEqualTypeOf<{ items: z.infer<typeof sandboxSchema>[]; next_page_id: string | null }>();
    expectTypeOf(client.sandboxes.getMany).returns.resolves.toEqualTypeOf<(z.infer<typeof sandboxSchema> | null)[]>();
    expectTypeOf(client.apiKeys.revoke).returns.resolves.toBeVoid();
    expectTypeOf(client.subscriptions.create).returns.resolves.toEqualTypeOf<SubscriptionWithSecret>();
    expectTypeOf<SubscriptionWithSecret['secret']>().toEqualTypeOf<string>();
    expectTypeOf<Subscription>().not.toHaveProperty('secret');
    expectTypeOf(client.subscriptions.replayMessage).returns.resolves.toEqualTypeOf<OutboundMessage>();
    expectTypeOf<OutboundMessage['attempts'][number]['status_code']>().toEqualTypeOf<number | null>();
    expectTypeOf(client.subscriptions.delete).returns.resolves.toBeVoid();
  });

  it('iterators yield records', () => {
    expectTypeOf(client.automations.iterate()).toMatchTypeOf<AsyncIterable<z.infer<typeof automationSchema>>>();
    expectTypeOf(client.sandboxes.iterate()).toMatchTypeOf<AsyncIterable<z.infer<typeof sandboxSchema>>>();
  });

  it('a READY start task has its conversation id', () => {
    expectTypeOf(client.conversations.waitUntilReady).returns.resolves.toEqualTypeOf<ReadyStartTask>();
    expectTypeOf<ReadyStartTask['app_conversation_id']>().toEqualTypeOf<string>();
    expectTypeOf<ReadyStartTask['status']>().toEqualTypeOf<'READY'>();
  });

  it('errors carry the service’s codes and the 422 issues', () => {
    expectTypeOf<AgentPlatformError['code']>().toEqualTypeOf<AgentPlatformErrorCode>();
    expectTypeOf<'NOT_FOUND'>().toMatchTypeOf<AgentPlatformErrorCode>();
    expectTypeOf<ErrorCode>().toMatchTypeOf<AgentPlatformErrorCode>();
    expectTypeOf<AgentPlatformError['issues']>().toEqualTypeOf<ValidationIssue[]>();
  });

  it('refuses what the server would refuse', () => {
    // @ts-expect-error: automations run on events, not on a schedule
    void (() => client.automations.create({ name: 'n', instructions: 'i', trigger: { type: 'cron', source: 'x', on: 'y' } }));
    // @ts-expect-error: max_iterations is a number
    void (() => client.settings.store({ max_iterations: 'ten' }));
    // @ts-expect-error: an event type the platform does not send
    void (() => client.subscriptions.create({ url: 'https://x.example', event_types: ['run.exploded'] }));
    // @ts-expect-error: a message status is one of four
    void (() => client.subscriptions.listMessages('sub_1', { status: 'lost' }));
    // @ts-expect-error: an unknown signature scheme
    void (() => client.webhooks.register({ name: 'n', source: 's', signature_scheme: 'md5' }));
    // @ts-expect-error: an event is a payload or a body, not both
    void (() => client.events.send({ org_id: 'o', source: 's', secret: 'x', payload: {}, body: '{}' }));
    // @ts-expect-error: nor neither
    void (() => client.events.send({ org_id: 'o', source: 's', secret: 'x' }));
    // @ts-expect-error: delivery status is one of four
    void (() => client.deliveries.list({ status: 'lost' }));
  });

  it('OpenHands events are typed by kind, and runs carry their metrics', () => {
    const event = {} as ConversationEvent;
    if (isAgentEvent(event, 'ActionEvent')) {
      expectTypeOf(event.data.tool_call.function.name).toEqualTypeOf<string>();
      expectTypeOf(event.data.metrics).toEqualTypeOf<MetricsSnapshot | null>();
    }
    if (isAgentEvent(event, 'ObservationEvent')) expectTypeOf(event.data.action_id).toEqualTypeOf<string>();
    expectTypeOf<Run['metrics']>().toEqualTypeOf<MetricsSnapshot | null | undefined>();
  });

  it('namespace methods answer what the route table says their endpoint answers', () => {
    expectTypeOf(client.automations.create).returns.resolves.toEqualTypeOf<RouteResponse<'POST /api/automation/v1'>>();
    expectTypeOf(client.automations.create).returns.resolves.toEqualTypeOf<Automation>();
    expectTypeOf(client.automations.list).returns.resolves.toEqualTypeOf<AutomationList>();
    expectTypeOf(client.automations.list).returns.resolves.toEqualTypeOf<z.infer<typeof automationListSchema>>();
    expectTypeOf(client.automations.getRun).returns.resolves.toEqualTypeOf<RouteResponse<'GET /api/automation/v1/runs/{run_id}'>>();
    expectTypeOf(client.automations.delete).returns.resolves.toBeVoid();
    expectTypeOf(client.sandboxes.search).returns.resolves.toEqualTypeOf<SandboxPage>();
    expectTypeOf(client.sandboxes.pause).returns.resolves.toEqualTypeOf<{ success: boolean }>();
    expectTypeOf(client.system.health).returns.resolves.toEqualTypeOf<{ status: string }>();
    expectTypeOf(client.system.openapi).returns.resolves.toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf(client.conversations.finalResponse).returns.resolves.toEqualTypeOf<string>();
    // One endpoint, two answers (a page, or a list by id): each method gets its own.
    expectTypeOf(client.conversations.list).returns.resolves.toEqualTypeOf<AppConversationPage>();
    expectTypeOf(client.conversations.getMany).returns.resolves.toEqualTypeOf<(z.infer<typeof appConversationSchema> | null)[]>();
  });

  it('the OpenHands endpoints: secrets, the current key, rename / delete / download / readFile, automation health', () => {
    expectTypeOf(client.secrets.list).returns.resolves.toEqualTypeOf<CustomSecretPage>();
    expectTypeOf(client.secrets.iterate()).toMatchTypeOf<AsyncIterable<CustomSecret>>();
    expectTypeOf(client.secrets.create).returns.resolves.toEqualTypeOf<MessageResponse>();
    expectTypeOf(client.secrets.update).returns.resolves.toEqualTypeOf<MessageResponse>();
    expectTypeOf(client.secrets.delete).returns.resolves.toEqualTypeOf<MessageResponse>();
    expectTypeOf<Parameters<Client['secrets']['update']>[1]>().toEqualTypeOf<{ name?: string; description?: string | null | undefined }>();
    expectTypeOf(client.apiKeys.current).returns.resolves.toEqualTypeOf<CurrentApiKey>();
    expectTypeOf(client.conversations.rename).returns.resolves.toEqualTypeOf<AppConversation>();
    expectTypeOf(client.conversations.delete).returns.resolves.toEqualTypeOf<{ success: boolean }>();
    // Not JSON: the zip is a Blob, the file's text a string.
    expectTypeOf(client.conversations.download).returns.resolves.toEqualTypeOf<Blob>();
    expectTypeOf(client.conversations.readFile).returns.resolves.toEqualTypeOf<string>();
    expectTypeOf(client.system.automationHealth).returns.resolves.toEqualTypeOf<AutomationHealth>();
    // @ts-expect-error: a secret needs a value
    void (() => client.secrets.create({ name: 'TOKEN' }));
  });
});

describe('roles', () => {
  it('each endpoint carries the least role its caller needs, as the route table declares it', () => {
    expectTypeOf<RouteRole<'GET /api/automation/v1'>>().toEqualTypeOf<'viewer'>();
    expectTypeOf<RouteRole<'POST /api/automation/v1'>>().toEqualTypeOf<'member'>();
    expectTypeOf<RouteRole<'POST /api/automation/v1/webhooks'>>().toEqualTypeOf<'admin'>();
    expectTypeOf<RouteRole<'GET /api/automation/v1/audit'>>().toEqualTypeOf<'admin'>();
    expectTypeOf<RouteRole<'PUT /api/automation/v1/budgets'>>().toEqualTypeOf<'owner'>();
    expectTypeOf<RouteRole<'PATCH /api/automation/v1/members/{user_id}'>>().toEqualTypeOf<'owner'>();
    expectTypeOf<ApiRoutes['POST /api/keys']['role']>().toEqualTypeOf<'viewer'>();
    // No key, no role.
    expectTypeOf<RouteRole<'GET /health'>>().toEqualTypeOf<undefined>();
    expectTypeOf<RouteRole<'POST /api/automation/v1/events/github'>>().toEqualTypeOf<undefined>();
    // Every endpoint that takes a key names a role.
    type KeyedRouteKey = { [K in keyof ApiRoutes]: ApiRoutes[K]['credential'] extends 'none' ? never : K }[keyof ApiRoutes];
    expectTypeOf<RouteRole<KeyedRouteKey>>().toEqualTypeOf<'viewer' | 'member' | 'admin' | 'owner'>();
  });

  it('the audit log: a page, every entry, the NDJSON export and the verification', () => {
    expectTypeOf(client.audit.list).returns.resolves.toEqualTypeOf<AuditPage>();
    expectTypeOf<AuditPage['next_after']>().toEqualTypeOf<number | null>();
    expectTypeOf(client.audit.iterate()).toMatchTypeOf<AsyncIterable<AuditEntry>>();
    expectTypeOf(client.audit.export).returns.resolves.toEqualTypeOf<Blob>();
    expectTypeOf(client.audit.verify).returns.resolves.toEqualTypeOf<AuditVerification>();
    expectTypeOf<AuditEntry['actor']['kind']>().toEqualTypeOf<'key' | 'thread' | 'system'>();
    // @ts-expect-error: no such filter
    void (() => client.audit.list({ actr: 'alice' }));
    // @ts-expect-error: the iterator sets the cursor itself
    void (() => client.audit.iterate({ after: 3 }));
  });
});

describe('client.request', () => {
  // The calls are inside arrow functions: `expectTypeOf` takes a value, and calling would send a request.
  it('infers the answer from the key', () => {
    expectTypeOf(() => client.request('GET /api/automation/v1/runs/{run_id}', { params: { run_id: 'run_1' } })).returns.resolves.toEqualTypeOf<
      z.infer<typeof runSchema>
    >();
    expectTypeOf(() =>
      client.request('POST /api/automation/v1', { json: { name: 'n', instructions: 'i', trigger: { type: 'event', source: 's', on: 'x' } } }),
    ).returns.resolves.toEqualTypeOf<Automation>();
    expectTypeOf(() => client.request('DELETE /api/keys/{id}', { params: { id: 'key_1' } })).returns.resolves.toBeVoid();
    expectTypeOf(() => client.request('GET /api/settings', { credential: 'session' })).returns.resolves.toEqualTypeOf<z.infer<typeof settingsViewSchema>>();
    expectTypeOf(() => client.request('GET /health', { credential: 'none' }, { timeout: 1_000 })).returns.resolves.toEqualTypeOf<{ status: string }>();
    // The init is optional when nothing in it is required.
    expectTypeOf(() => client.request('GET /api/keys')).returns.resolves.toEqualTypeOf<RouteResponse<'GET /api/keys'>>();
    // Text and binary answers: a string and a Blob, as the route's responseType says.
    expectTypeOf(() =>
      client.request('GET /api/v1/app-conversations/{id}/file', { params: { id: 'c' }, query: { file_path: 'a.txt' } }),
    ).returns.resolves.toEqualTypeOf<string>();
    expectTypeOf(() => client.request('GET /api/v1/app-conversations/{id}/download', { params: { id: 'c' } })).returns.resolves.toEqualTypeOf<Blob>();
  });

  it('sorts the endpoints by how their answer is read', () => {
    expectTypeOf<RouteResponseType<'GET /api/v1/app-conversations/{id}/download'>>().toEqualTypeOf<'binary'>();
    expectTypeOf<RouteResponseType<'GET /api/v1/app-conversations/{id}/file'>>().toEqualTypeOf<'text'>();
    expectTypeOf<RouteResponseType<'GET /api/keys'>>().toEqualTypeOf<'json'>();
    // Downloads: a conversation's zip, the audit log's NDJSON export.
    expectTypeOf<BinaryRouteKey>().toEqualTypeOf<'GET /api/v1/app-conversations/{id}/download' | 'GET /api/automation/v1/audit/export'>();
    expectTypeOf<TextRouteKey>().toEqualTypeOf<'GET /api/v1/app-conversations/{id}/file'>();
    expectTypeOf<JsonRouteKey | TextRouteKey | BinaryRouteKey>().toEqualTypeOf<RequestRouteKey>();
    expectTypeOf<'GET /api/keys'>().toMatchTypeOf<JsonRouteKey>();
  });

  it('takes the init the route table describes', () => {
    expectTypeOf<RouteInit<'GET /api/automation/v1/runs/{run_id}'>['params']>().toEqualTypeOf<{ run_id: string }>();
    expectTypeOf<RouteInit<'POST /api/automation/v1'>['json']>().toEqualTypeOf<z.input<typeof automationCreateInputSchema>>();
    expectTypeOf<RouteInit<'GET /api/settings'>['credential']>().toEqualTypeOf<'session'>();
    expectTypeOf<RouteInit<'POST /api/automation/v1/events/github'>['credential']>().toEqualTypeOf<'none'>();
    expectTypeOf<RouteInit<'GET /api/automation/v1'>['credential']>().toEqualTypeOf<'bearer' | undefined>();
    // Coerced query fields (`z.coerce.number()`: input `unknown`) take a number or a string; arrays may be read-only.
    expectTypeOf<RouteQuery<'GET /api/automation/v1'>>().toEqualTypeOf<{
      limit?: string | number | boolean | null | undefined;
      offset?: string | number | boolean | null | undefined;
    }>();
    expectTypeOf<{ ids: readonly string[] }>().toMatchTypeOf<NonNullable<RouteQuery<'GET /api/v1/app-conversations/start-tasks'>>>();
    expectTypeOf<Parameters<typeof client.request>[0]>().toEqualTypeOf<Exclude<RouteKey, StreamRouteKey>>();
    expectTypeOf<Parameters<typeof client.request<'GET /api/keys'>>[2]>().toEqualTypeOf<CallOptions | undefined>();
  });

  it('refuses a call the route table does not allow', () => {
    // @ts-expect-error: the path has a {run_id}
    void (() => client.request('GET /api/automation/v1/runs/{run_id}'));
    // @ts-expect-error: the path has a {run_id}, not an {id}
    void (() => client.request('GET /api/automation/v1/runs/{run_id}', { params: { id: 'run_1' } }));
    // @ts-expect-error: creating an automation requires a body
    void (() => client.request('POST /api/automation/v1', {}));
    // @ts-expect-error: the body is the create input
    void (() => client.request('POST /api/automation/v1', { json: { name: 'n' } }));
    // @ts-expect-error: settings take the session key, and the call must say so
    void (() => client.request('GET /api/settings'));
    // @ts-expect-error: settings take the session key, not the bearer one
    void (() => client.request('GET /api/settings', { credential: 'bearer' }));
    // @ts-expect-error: an automation takes the bearer key, not the session one
    void (() => client.request('GET /api/automation/v1/{id}', { params: { id: 'a' }, credential: 'session' }));
    // @ts-expect-error: health takes no key, and the call must say so
    void (() => client.request('GET /health'));
    // @ts-expect-error: delivery status is one of four
    void (() => client.request('GET /api/automation/v1/deliveries', { query: { status: 'lost' } }));
    // @ts-expect-error: no such endpoint
    void (() => client.request('GET /api/nothing', {}));
    // @ts-expect-error: a stream is read with conversations.stream, not request
    void (() => client.request('GET /api/v1/app-conversations/{id}/events/stream', { params: { id: 'c' } }));
  });
});
