/**
 * Type tests for the public surface. They are checked by `tsc` (`pnpm typecheck`, and the build
 * project's type-check test): a client type that drifts from the server's schemas fails to compile.
 * At run time `expectTypeOf` does nothing; the `it` blocks only give the checks names.
 */
import type { z } from 'zod';
import type {
  automationCreateInputSchema,
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
import { createClient, isAgentEvent, type AgentPlatformError, type AgentPlatformErrorCode, type ConversationEvent, type MetricsSnapshot, type ReadyStartTask, type Run } from './index.js';

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
});
