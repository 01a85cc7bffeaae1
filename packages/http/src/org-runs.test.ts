import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1';
const automation = (name: string) => ({
  name,
  trigger: { type: 'event', source: 'github', on: 'push' },
  instructions: 'Say hello.',
});

describe.each(BINDINGS)('the org’s runs across automations on %s', (binding) => {
  let api: Harness;
  let ids: { first: string; second: string };
  /** Dispatched newest last: two of the first automation, one of the second, one cancelled. */
  let runs: string[];
  beforeAll(async () => {
    api = await startHarness(binding);
    const first = (await api.request('POST', BASE, { json: automation('First') })).json.id;
    const second = (await api.request('POST', BASE, { as: 'bob', json: automation('Second') })).json.id;
    ids = { first, second };
    runs = [];
    for (const id of [first, second, first, second]) runs.push((await api.request('POST', `${BASE}/${id}/dispatch`)).json.id);
    expect((await api.request('POST', `${BASE}/runs/${runs[3]}/cancel`)).status).toBe(200);
  });
  afterAll(() => api.close());

  it('lists every automation’s runs of the org, newest first, not another org’s (rather than 404 "Automation not found")', async () => {
    const listed = await api.request('GET', `${BASE}/runs`);
    expect(listed.status).toBe(200);
    expect(listed.json.items.map((run: { id: string }) => run.id)).toEqual([...runs].reverse());
    expect(listed.json.items[0]).toMatchObject({ automation_id: ids.second, status: 'CANCELLED' });
    expect(listed.json.next_page_id).toBeNull();
    expect((await api.request('GET', `${BASE}/runs`, { as: 'mallory' })).json.items).toEqual([]);
  });

  it('narrows by status (one or several), automation and since', async () => {
    const idsOf = async (query: string) => (await api.request('GET', `${BASE}/runs?${query}`)).json.items.map((run: { id: string }) => run.id);
    expect(await idsOf('status=CANCELLED')).toEqual([runs[3]]);
    expect(await idsOf('status=PENDING,CANCELLED')).toEqual([...runs].reverse());
    expect(await idsOf(`automation_id=${ids.first}`)).toEqual([runs[2], runs[0]]);
    expect(await idsOf(`automation_id=${ids.second}&status=PENDING`)).toEqual([runs[1]]);
    expect(await idsOf(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
  });

  it('pages with page_id to the end, each run once', async () => {
    const seen: string[] = [];
    let pageId: string | null = null;
    do {
      const page = await api.request('GET', `${BASE}/runs?limit=1${pageId ? `&page_id=${pageId}` : ''}`);
      expect(page.json.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.items.map((run: { id: string }) => run.id));
      pageId = page.json.next_page_id;
    } while (pageId);
    expect(seen).toEqual([...runs].reverse());
  });

  it.each([
    ['an unknown status', 'status=DONE', ['query', 'status']],
    ['a bad time', 'since=yesterday', ['query', 'since']],
    ['a page id no page handed out', 'page_id=not-a-page', ['query', 'page_id']],
    ['a limit over 100', 'limit=101', ['query', 'limit']],
    ['an unknown parameter', 'statuss=FAILED', ['query', 'statuss']],
  ])('answers 422 naming the parameter for %s', async (_label, query, loc) => {
    const response = await api.request('GET', `${BASE}/runs?${query}`);
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
  });
});
