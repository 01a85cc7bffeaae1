/**
 * `client.audit` against the real handler in process: changes made with the client are listed
 * (answers parsed with the server's own schemas), filtered, walked with the `after` cursor,
 * exported as NDJSON and verified; a key below admin gets the server's 403 as a typed error.
 */
import { auditEntrySchema, auditPageSchema, auditVerificationSchema } from '@agent-platform/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, isAgentPlatformError } from './index.js';
import { startInProcess, type InProcessService } from '../test-support/in-process.js';

let service: InProcessService;
let webhookId: string;
let memberKey: string;
beforeAll(async () => {
  service = await startInProcess();
  const alice = service.client('alice');
  const webhook = await alice.webhooks.register({ name: 'CI', source: 'ci' });
  webhookId = webhook.id;
  await alice.webhooks.update(webhook.id, { name: 'CI builds' });
  memberKey = (await alice.apiKeys.create({ name: 'laptop', role: 'member' })).key;
  await alice.webhooks.delete(webhook.id);
});
afterAll(() => service.close());

describe('audit', () => {
  it('lists the entries oldest first, filtered, with the cursor for the next page', async () => {
    const alice = service.client('alice');
    const page = auditPageSchema.parse(await alice.audit.list());
    expect(page.entries.map((entry) => entry.action)).toEqual(['webhook.created', 'webhook.updated', 'api_key.created', 'webhook.deleted']);
    expect(page.next_after).toBeNull();
    const webhookOnly = await alice.audit.list({ target_type: 'webhook', target_id: webhookId, limit: 2 });
    expect(webhookOnly.entries.map((entry) => entry.action)).toEqual(['webhook.created', 'webhook.updated']);
    expect(webhookOnly.next_after).toBe(2);
    const rest = await alice.audit.list({ target_type: 'webhook', limit: 2, after: webhookOnly.next_after ?? 0 });
    expect(rest.entries.map((entry) => entry.action)).toEqual(['webhook.deleted']);
    // The query goes out as the route reads it.
    const sent = new URL(service.requests.at(-1)?.url ?? '');
    expect(Object.fromEntries(sent.searchParams)).toEqual({ target_type: 'webhook', limit: '2', after: '2' });
  });

  it('iterates every entry page by page, with the filters', async () => {
    const alice = service.client('alice');
    const before = service.requests.length;
    const entries = await collect(alice.audit.iterate({ pageSize: 1 }));
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
    for (const entry of entries) auditEntrySchema.parse(entry);
    // One page per entry, and the last (empty) page that says there is no more.
    expect(service.requests.length - before).toBe(5);
    const created = await collect(alice.audit.iterate({ action: 'api_key.created' }));
    expect(created).toEqual([expect.objectContaining({ action: 'api_key.created', details: expect.objectContaining({ role: 'member' }) })]);
  });

  it('exports NDJSON, the same entries as the list', async () => {
    const alice = service.client('alice');
    const exported = await alice.audit.export({ target_type: 'webhook' });
    expect(exported.type).toMatch(/^application\/x-ndjson/);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => auditEntrySchema.parse(JSON.parse(line)));
    expect(lines).toEqual((await alice.audit.list({ target_type: 'webhook' })).entries);
  });

  it('verifies the chain', async () => {
    const verification = auditVerificationSchema.parse(await service.client('alice').audit.verify());
    expect(verification).toEqual({ valid: true, checked: 4, broken_at: null });
  });

  it('refuses a key below admin with a 403 naming the role', async () => {
    const member = service.client(null, { apiKey: memberKey });
    const refused = await member.audit.list().catch((error: unknown) => error);
    expect(isAgentPlatformError(refused) && refused.status).toBe(403);
    expect(isAgentPlatformError(refused) && refused.message).toContain('admin');
  });
});
