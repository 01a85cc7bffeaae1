import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '@agent-platform/core';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1';
const valid = {
  name: 'Triage bugs',
  trigger: { type: 'event', source: 'github', on: 'issues.labeled', filter: "contains(issue.labels[].name, 'bug')" },
  instructions: 'Reproduce the bug and open a PR with a fix.',
};

describe.each(BINDINGS)('automations API on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  it('creates (201), gets, lists newest first, updates and deletes (204)', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.any(String),
      org_id: 'acme',
      created_by: 'alice',
      enabled: true,
      trigger: { type: 'event', source: 'github', on: 'issues.labeled', filter: valid.trigger.filter },
      sandbox_spec_id: null,
      last_triggered_at: null,
    });
    const second = await api.request('POST', BASE, { as: 'bob', json: { ...valid, name: 'Second', trigger: { ...valid.trigger, on: ['push', 'release.*'] } } });
    expect(second.json.trigger.on).toEqual(['push', 'release.*']);

    expect((await api.request('GET', `${BASE}/${created.json.id}`, { as: 'bob' })).json.name).toBe('Triage bugs');
    const listed = await api.request('GET', `${BASE}?limit=10`);
    expect(listed.json.total).toBeGreaterThanOrEqual(2);
    expect(listed.json.automations[0].id).toBe(second.json.id);

    const updated = await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { enabled: false, trigger: { filter: null } } });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ enabled: false, trigger: { on: 'issues.labeled', filter: null, source: 'github' } });

    expect((await api.request('DELETE', `${BASE}/${created.json.id}`)).status).toBe(204);
    expect((await api.request('GET', `${BASE}/${created.json.id}`)).status).toBe(404);
  });

  it.each([
    ['a schedule trigger', { ...valid, trigger: { ...valid.trigger, type: 'schedule' } }, ['body', 'trigger', 'type']],
    ['missing instructions', { name: 'x', trigger: valid.trigger }, ['body', 'instructions']],
    ['empty instructions', { ...valid, instructions: '' }, ['body', 'instructions']],
    ['instructions over 50,000 characters', { ...valid, instructions: 'x'.repeat(50_001) }, ['body', 'instructions']],
    ['a name over 500 characters', { ...valid, name: 'x'.repeat(501) }, ['body', 'name']],
    ['a filter that does not parse', { ...valid, trigger: { ...valid.trigger, filter: 'issue.labels[' } }, ['body', 'trigger', 'filter']],
    ['a filter with an unknown function', { ...valid, trigger: { ...valid.trigger, filter: "startswith(ref, 'x')" } }, ['body', 'trigger', 'filter']],
    ['a filter over 4,096 characters', { ...valid, trigger: { ...valid.trigger, filter: `a == '${'x'.repeat(4100)}'` } }, ['body', 'trigger', 'filter']],
    ['an empty on list', { ...valid, trigger: { ...valid.trigger, on: [] } }, ['body', 'trigger', 'on']],
    ['a bad source', { ...valid, trigger: { ...valid.trigger, source: 'Not A Source' } }, ['body', 'trigger', 'source']],
  ])('answers 422 for %s', async (_label, body, loc) => {
    const response = await api.request('POST', BASE, { json: body });
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toContainEqual(loc);
  });

  it('validates a PATCH of the trigger as a whole', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const bad = await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { trigger: { filter: 'nope(' } } });
    expect(bad.status).toBe(422);
    const type = await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { trigger: { type: 'cron' } } });
    expect(type.status).toBe(422);
  });

  it('dispatches a manual run (201), also from an empty JSON body, and lists runs newest first', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const first = await api.request('POST', `${BASE}/${created.json.id}/dispatch`, { headers: { 'content-type': 'application/json' } });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ automation_id: created.json.id, status: 'PENDING', trigger: 'manual', delivery_id: null, created_by: 'alice' });
    expect(first.json).not.toHaveProperty('dispatch_payload_json');
    const second = await api.request('POST', `${BASE}/${created.json.id}/dispatch`, { json: { payload: { ref: 'refs/heads/main' } } });
    expect(second.status).toBe(201);
    const runs = await api.request('GET', `${BASE}/${created.json.id}/runs`);
    expect(runs.json.total).toBe(2);
    expect(runs.json.runs.map((run: { id: string }) => run.id)).toEqual([second.json.id, first.json.id]);
    expect((await api.request('GET', `${BASE}/${created.json.id}`)).json.last_triggered_at).not.toBeNull();
  });

  it('gets one run by id, the same record the runs list holds; 404 for an unknown id', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const run = await api.request('POST', `${BASE}/${created.json.id}/dispatch`);
    const got = await api.request('GET', `${BASE}/runs/${run.json.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual((await api.request('GET', `${BASE}/${created.json.id}/runs`)).json.runs[0]);
    expect((await api.request('GET', `${BASE}/runs/run_unknown`)).status).toBe(404);
  });

  it("shows a run's GitHub report, a record of its own, beside the run: one run, the runs list and a cancel; null for none", async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const reported = await api.request('POST', `${BASE}/${created.json.id}/dispatch`);
    const quiet = await api.request('POST', `${BASE}/${created.json.id}/dispatch`);
    expect(reported.json.report).toBeNull();
    const report: RunReport = {
      target: 'acme/app#7',
      reaction: 'added',
      comment_id: null,
      comment_url: null,
      error: null,
      comment_due: true,
      updated_at: new Date().toISOString(),
    };
    expect(await api.storage.runReports.put('acme', reported.json.id, report)).toBe(true);
    expect((await api.request('GET', `${BASE}/runs/${reported.json.id}`)).json.report).toEqual(report);
    expect((await api.request('GET', `${BASE}/runs/${quiet.json.id}`)).json.report).toBeNull();
    const listed = (await api.request('GET', `${BASE}/${created.json.id}/runs`)).json.runs;
    // Two runs dispatched within one millisecond may list in either order: compared by id.
    expect(new Map(listed.map((run: { id: string; report: unknown }) => [run.id, run.report]))).toEqual(
      new Map([
        [quiet.json.id, null],
        [reported.json.id, report],
      ]),
    );
    expect((await api.request('POST', `${BASE}/runs/${reported.json.id}/cancel`)).json.report).toEqual(report);
  });

  it('cancels a pending run, then answers 409 for a second cancel', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const run = await api.request('POST', `${BASE}/${created.json.id}/dispatch`);
    const cancelled = await api.request('POST', `${BASE}/runs/${run.json.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'CANCELLED', completed_at: expect.any(String) });
    expect((await api.request('POST', `${BASE}/runs/${run.json.id}/cancel`)).status).toBe(409);
    expect((await api.request('POST', `${BASE}/runs/run_unknown/cancel`)).status).toBe(404);
  });

  it('hides another org’s automations and runs behind 404', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const run = await api.request('POST', `${BASE}/${created.json.id}/dispatch`);
    for (const [method, path] of [
      ['GET', `${BASE}/${created.json.id}`],
      ['PATCH', `${BASE}/${created.json.id}`],
      ['DELETE', `${BASE}/${created.json.id}`],
      ['POST', `${BASE}/${created.json.id}/dispatch`],
      ['GET', `${BASE}/${created.json.id}/runs`],
      ['GET', `${BASE}/runs/${run.json.id}`],
      ['POST', `${BASE}/runs/${run.json.id}/cancel`],
    ] as const) {
      const response = await api.request(method, path, { as: 'mallory', json: method === 'PATCH' ? { name: 'x' } : undefined });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const theirs = await api.request('GET', BASE, { as: 'mallory' });
    expect(theirs.json.automations.some((automation: { id: string }) => automation.id === created.json.id)).toBe(false);
  });

  it('validates list paging', async () => {
    expect((await api.request('GET', `${BASE}?limit=101`)).status).toBe(422);
    expect((await api.request('GET', `${BASE}?offset=-1`)).status).toBe(422);
  });

  it('validates a draft (200 with a verdict per payload, 422 like create), storing nothing', async () => {
    const before = (await api.request('GET', BASE)).json.total;
    const sample = { action: 'labeled', issue: { labels: [{ name: 'bug' }] } };
    const answer = await api.request('POST', `${BASE}/validate`, { json: { automation: valid, sample_payload: sample, sample_event_key: 'issues.labeled' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      valid: true,
      trigger: { ...valid.trigger },
      enabled: true,
      results: [{ payload: 'sample', delivery_id: null, received_at: null, event_key: 'issues.labeled', matched: true, reason: 'matched', detail: null }],
    });
    const invalid = await api.request('POST', `${BASE}/validate`, { json: { automation: { ...valid, trigger: { ...valid.trigger, filter: 'nope(' } } } });
    expect(invalid.status).toBe(422);
    expect(invalid.json.detail[0].loc).toEqual(['body', 'automation', 'trigger', 'filter']);
    expect((await api.request('POST', `${BASE}/validate`, { json: { automation: valid, test_recent: 500 } })).status).toBe(422);
    expect((await api.request('GET', BASE)).json.total).toBe(before);
  });
});
