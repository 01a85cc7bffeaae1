/**
 * The soak's orgs, registered through a server's API as their users would: each org's user has a
 * key (seeded with `AGENT_PLATFORM_API_KEYS`), owner settings whose `llm_model` is the scripted
 * model on loopback (so its runs use the built-in agent on the process sandbox), a webhook source
 * `soak` (delivery ids in `X-Delivery`, for dedup), three automations and a subscription to the
 * run events on the soak's loopback receiver:
 *
 * | automation | on | flow control |
 * |---|---|---|
 * | `plain` | `job.run` | none |
 * | `queued` | `job.keyed` | `concurrency_key: key`, `on_conflict: queue` |
 * | `latest` | `job.latest` | `concurrency_key: key`, `on_conflict: cancel_previous` |
 *
 * `job.noop` events match none (an unmatched delivery).
 * @module
 */
import { createServer, type Server } from 'node:http';
import { apiClient } from '../../test/e2e/support/http-api.js';
import { LLM_KEY, MODEL } from './model.js';

export interface Org {
  id: string;
  user: string;
  key: string;
  webhookSecret: string;
  /** Automation id by name. */
  automations: Record<'plain' | 'queued' | 'latest', string>;
}

export const SOURCE = 'soak';
export const RUN_EVENTS = ['run.started', 'run.completed', 'run.failed', 'run.cancelled'] as const;

export function orgKeys(count: number): { id: string; user: string; key: string }[] {
  return Array.from({ length: count }, (_, i) => ({ id: `soak-org-${i}`, user: `soak-user-${i}`, key: `soak-key-${i}-0123456789abcdef` }));
}

export const seededKeys = (orgs: readonly { id: string; user: string; key: string }[]) => orgs.map((org) => `${org.user}@${org.id}:${org.key}`).join(',');

/** What the receiver was sent: each message once (by `webhook-id`), with how often it came. */
export interface ReceivedEvent {
  type: string;
  runId: string | null;
  status: string | null;
  times: number;
}

export interface Receiver {
  url: string;
  readonly received: ReadonlyMap<string, ReceivedEvent>;
  close(): Promise<void>;
}

/** The subscribers' endpoint: answers 200 to everything and records it (signatures are the outbound tests' concern). */
export async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, ReceivedEvent>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? '');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id?: string; status?: string } };
        const seen = received.get(id);
        if (seen) seen.times++;
        else received.set(id, { type: body.type, runId: body.data.id ?? null, status: body.data.status ?? null, times: 1 });
      } catch {
        // Not a platform message: still 200, nothing recorded.
      }
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function expectStatus(what: string, answer: Promise<{ status: number; json: any }>, status: number): Promise<any> {
  const { status: got, json } = await answer;
  if (got !== status) throw new Error(`${what}: HTTP ${got} ${JSON.stringify(json)}`);
  return json;
}

/** Registers one org through `baseUrl`. */
export async function registerOrg(baseUrl: string, org: { id: string; user: string; key: string }, llmUrl: string, receiverUrl: string): Promise<Org> {
  const call = apiClient(baseUrl, org.key);
  await expectStatus('settings', call('POST', '/api/settings', { llm_model: MODEL, llm_api_key: LLM_KEY, llm_base_url: `${llmUrl}/v1` }), 200);
  const webhook = await expectStatus(
    'webhook',
    call('POST', '/api/automation/v1/webhooks', { name: 'Soak', source: SOURCE, delivery_id_header: 'X-Delivery' }),
    201,
  );
  const automation = async (name: string, on: string, flow: Record<string, unknown> = {}) =>
    (
      await expectStatus(
        `automation ${name}`,
        call('POST', '/api/automation/v1', {
          name,
          trigger: { type: 'event', source: SOURCE, on },
          instructions: `task:soak automation:${name} — record this event in the ledger.`,
          ...flow,
        }),
        201,
      )
    ).id as string;
  const automations = {
    plain: await automation('plain', 'job.run'),
    queued: await automation('queued', 'job.keyed', { concurrency_key: 'key', on_conflict: 'queue' }),
    latest: await automation('latest', 'job.latest', { concurrency_key: 'key', on_conflict: 'cancel_previous' }),
  };
  await expectStatus('subscription', call('POST', '/api/automation/v1/subscriptions', { url: receiverUrl, event_types: [...RUN_EVENTS] }), 201);
  return { ...org, webhookSecret: webhook.webhook_secret as string, automations };
}
