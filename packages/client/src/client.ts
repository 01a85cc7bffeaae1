/**
 * {@link createClient}: the typed client for a running agent-platform service.
 * @module
 */
import type { RetryOptions } from 'ky';
import { apiKeysNamespace } from './namespaces/api-keys.js';
import { auditNamespace } from './namespaces/audit.js';
import { automationsNamespace } from './namespaces/automations.js';
import { budgetsNamespace } from './namespaces/budgets.js';
import { conversationsNamespace } from './namespaces/conversations.js';
import { deliveriesNamespace } from './namespaces/deliveries.js';
import { eventsNamespace } from './namespaces/events.js';
import { membersNamespace } from './namespaces/members.js';
import { overviewNamespace } from './namespaces/overview.js';
import { sandboxesNamespace, sandboxSpecsNamespace } from './namespaces/sandboxes.js';
import { gitProvidersNamespace, settingsNamespace } from './namespaces/settings.js';
import { secretsNamespace } from './namespaces/secrets.js';
import { subscriptionsNamespace } from './namespaces/subscriptions.js';
import { systemNamespace } from './namespaces/system.js';
import { webhooksNamespace } from './namespaces/webhooks.js';
import { createTransport } from './transport/transport.js';

export type { RetryOptions };

export interface ClientOptions {
  /** Where the API is served, e.g. `http://localhost:3000`, or `https://host/agents` when mounted under a prefix. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` (and as the session key when no `sessionApiKey` is given). */
  apiKey?: string;
  /** Sent as `X-Session-API-Key` on settings and provider-token calls (and everywhere when no `apiKey` is given). */
  sessionApiKey?: string;
  /** A `fetch` to use instead of the global one: a test's in-process handler, a proxy-aware fetch. */
  fetch?: typeof globalThis.fetch;
  /**
   * Retries of failed requests: a limit (default 2), or ky's retry options. By default only
   * idempotent methods (GET, PUT, DELETE, ...) are retried, on 408, 429, 500, 502, 503 and 504
   * and on network errors and timeouts, with exponential backoff and `Retry-After` honoured.
   * POST and PATCH are never retried unless you add them to `methods`. `0` turns retries off.
   */
  retry?: number | RetryOptions;
  /** Per-attempt timeout in ms (default 30,000), or `false` for none. */
  timeout?: number | false;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * A client for a running service: one namespace per resource, each method typed from the
 * server's own schemas. Works in Node 20+ and in browsers.
 *
 * @example
 * ```ts
 * import { createClient, isAgentPlatformError } from '@agent-platform/client';
 *
 * const client = createClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.AGENT_PLATFORM_API_KEY });
 * const webhook = await client.webhooks.register({ name: 'Linear', source: 'linear' });
 * try {
 *   await client.automations.create({ name: 'triage', trigger: { type: 'event', source: 'linear', on: 'Issue' }, instructions: 'Triage it' });
 * } catch (error) {
 *   if (isAgentPlatformError(error) && error.code === 'VALIDATION_FAILED') console.error(error.issues);
 *   else throw error;
 * }
 * ```
 */
export function createClient(options: ClientOptions) {
  const transport = createTransport(options);
  return {
    /**
     * Any endpoint of the API by its key, `` `${METHOD} ${path}` `` as the server's route table
     * declares it, typed from that table: the path parameters (required when the path has any),
     * `query`, `json` (required when the endpoint requires a body), `credential` (required when
     * the endpoint takes `session` or `none`), and the answer: parsed JSON, a `string` for a text
     * answer (a file's text), a `Blob` for a binary one (a zip), as the route declares. For
     * endpoints no namespace wraps yet; the same retries, timeouts and errors as every method.
     *
     * @example
     * ```ts
     * const run = await client.request('GET /api/automation/v1/runs/{run_id}', { params: { run_id: runId } });
     * const page = await client.request('GET /api/automation/v1', { query: { limit: 10 } }, { signal });
     * const settings = await client.request('GET /api/settings', { credential: 'session' });
     * const zip = await client.request('GET /api/v1/app-conversations/{id}/download', { params: { id } }); // Blob
     * ```
     */
    request: transport.call,
    settings: settingsNamespace(transport),
    gitProviders: gitProvidersNamespace(transport),
    secrets: secretsNamespace(transport),
    apiKeys: apiKeysNamespace(transport),
    webhooks: webhooksNamespace(transport),
    subscriptions: subscriptionsNamespace(transport),
    automations: automationsNamespace(transport),
    deliveries: deliveriesNamespace(transport),
    budgets: budgetsNamespace(transport),
    overview: overviewNamespace(transport),
    members: membersNamespace(transport),
    audit: auditNamespace(transport),
    events: eventsNamespace(transport),
    conversations: conversationsNamespace(transport),
    sandboxes: sandboxesNamespace(transport),
    sandboxSpecs: sandboxSpecsNamespace(transport),
    system: systemNamespace(transport),
  };
}

/** The client {@link createClient} returns. */
export type AgentPlatformClient = ReturnType<typeof createClient>;
