/**
 * Strict bodies on the platform's own routes: an unknown field is a 422 naming it, never
 * silently dropped — `"filtr"` would have made an automation without a filter, `"enabeld": false`
 * left one enabled, `"rle": "viewer"` made a key with its creator's whole role. Checked two ways:
 * every JSON-object body of an own route — under `/api/automation/v1` (members and budgets
 * included) and `/api/keys` — refuses unknown keys at every level of its object members, from
 * the route table, so a new route is checked too (and a new route with a body that is neither
 * own nor OpenHands-compatible fails); and the typos themselves, over HTTP.
 */
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from './routes/route-table.js';
import { startHarness, type Harness } from '../test-support/harness.js';

/** The object schemas inside `schema` (through optional, nullable, default, pipes, unions and arrays), with their paths. */
function objectsIn(schema: z.ZodType, path: string, seen = new Set<z.ZodType>()): Array<{ path: string; object: z.ZodObject }> {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'object': {
      const object = schema as z.ZodObject;
      const inner = Object.entries(object.shape).flatMap(([key, member]) => objectsIn(member as z.ZodType, `${path}.${key}`, seen));
      return [{ path, object }, ...inner];
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
      return objectsIn(def.innerType as z.ZodType, path, seen);
    case 'pipe':
      return objectsIn(def.in as z.ZodType, path, seen);
    case 'union':
      return (def.options as z.ZodType[]).flatMap((option) => objectsIn(option, path, seen));
    case 'array':
      return objectsIn(def.element as z.ZodType, `${path}[]`, seen);
    default:
      return [];
  }
}

/** Objects that hold the caller's own data, whose keys are theirs to choose. */
const FREE_FORM = new Set(['POST /api/automation/v1/{id}/dispatch body.payload']);

/** The platform's own routes: its automation API, and API keys (whose `role` is the platform's). */
const isOwn = (path: string): boolean => path.startsWith('/api/automation/v1') || path === '/api/keys' || path.startsWith('/api/keys/');

/**
 * The OpenHands-compatible routes, which take bodies as OpenHands does (docs/decisions.md,
 * "Strict bodies on the platform's own routes only"): settings and git tokens, custom secrets
 * (`/api/v1/secrets`), V1 conversations and sandboxes, the agent-server subset.
 */
const OPENHANDS_COMPATIBLE = ['/api/settings', '/api/add-git-providers', '/api/unset-provider-tokens', '/api/v1/', '/api/conversations/'];
const isOpenHandsCompatible = (path: string): boolean =>
  OPENHANDS_COMPATIBLE.some((prefix) => path === prefix || (prefix.endsWith('/') && path.startsWith(prefix)));

describe('the platform’s own routes refuse unknown fields', () => {
  const own = allRoutes().filter((route) => isOwn(route.path) && route.body);

  it('every route with a body is either the platform’s own or OpenHands-compatible', () => {
    const unclassified = allRoutes()
      .filter((route) => route.body && !isOwn(route.path) && !isOpenHandsCompatible(route.path))
      .map((route) => `${route.method} ${route.path}`);
    expect(unclassified).toEqual([]);
    // The own routes outside the automation API, and the team controls inside it, are checked.
    const checked = own.map((route) => `${route.method} ${route.path}`);
    expect(checked).toEqual(expect.arrayContaining(['POST /api/keys', 'PUT /api/automation/v1/budgets', 'PATCH /api/automation/v1/members/{user_id}']));
  });

  it('every object of every body, at every level, is strict', () => {
    const loose: string[] = [];
    for (const route of own) {
      for (const { path, object } of objectsIn(route.body!.schema, 'body')) {
        const name = `${route.method} ${route.path} ${path}`;
        const catchall = (object as unknown as { _zod: { def: { catchall?: { _zod: { def: { type: string } } } } } })._zod.def.catchall;
        if (catchall?._zod.def.type !== 'never' && !FREE_FORM.has(name)) loose.push(name);
      }
    }
    expect(own.length).toBeGreaterThan(10);
    expect(loose).toEqual([]);
  });
});

describe('typos are refused over HTTP, naming the field', () => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness('fastify');
  });
  afterAll(() => api.close());

  const automation = { name: 'Deploys', trigger: { type: 'event', source: 'github', on: 'push' }, instructions: 'Check it' };

  it('create: a misspelled filter, inside the trigger', async () => {
    const response = await api.request('POST', '/api/automation/v1', { json: { ...automation, trigger: { ...automation.trigger, filtr: 'false' } } });
    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'trigger', 'filtr'], type: 'extra_forbidden' })]);
    expect((await api.request('GET', '/api/automation/v1')).json.total).toBe(0);
  });

  it('PATCH: a misspelled "enabled" leaves the automation as it was', async () => {
    const created = await api.request('POST', '/api/automation/v1', { json: automation });
    const response = await api.request('PATCH', `/api/automation/v1/${created.json.id}`, { json: { enabeld: false } });
    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'enabeld'], type: 'extra_forbidden' })]);
    expect((await api.request('GET', `/api/automation/v1/${created.json.id}`)).json.enabled).toBe(true);
  });

  it('webhooks and subscriptions too', async () => {
    const webhook = await api.request('POST', '/api/automation/v1/webhooks', { json: { name: 'CI', source: 'ci', secret: 'whsec-0123456789' } });
    expect(webhook.status).toBe(422);
    expect(webhook.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'secret'], type: 'extra_forbidden' })]);
    const subscription = await api.request('POST', '/api/automation/v1/subscriptions', { json: { url: 'https://example.com/hook', event: ['run.failed'] } });
    expect(subscription.status).toBe(422);
    expect(subscription.json.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'event'], type: 'extra_forbidden' })]));
  });

  it('API keys: a misspelled role makes no key (it would have had the creator’s whole role)', async () => {
    const before = (await api.request('GET', '/api/keys')).json.keys.length;
    const response = await api.request('POST', '/api/keys', { json: { name: 'read-only dashboard', rle: 'viewer' } });
    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'rle'], type: 'extra_forbidden' })]);
    expect((await api.request('GET', '/api/keys')).json.keys).toHaveLength(before);
    // Spelled right, the key has the role asked for.
    const viewer = await api.request('POST', '/api/keys', { json: { name: 'read-only dashboard', role: 'viewer' } });
    expect(viewer.status).toBe(201);
    expect(viewer.json.role).toBe('viewer');
  });

  it('members and budgets: a misspelled field changes nothing', async () => {
    const budget = await api.request('PUT', '/api/automation/v1/budgets', { json: { scope: 'org', period: 'month', limit_usd: 50, limt_usd: 5 } });
    expect(budget.status).toBe(422);
    expect(budget.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'limt_usd'], type: 'extra_forbidden' })]);
    expect((await api.request('GET', '/api/automation/v1/budgets')).json.budgets).toEqual([]);
    const member = await api.request('PATCH', '/api/automation/v1/members/bob', { json: { role: 'viewer', rol: 'owner' } });
    expect(member.status).toBe(422);
    expect(member.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'rol'], type: 'extra_forbidden' })]);
  });
});
