import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1';
const automation = (name: string) => ({
  name,
  trigger: { type: 'event', source: 'github', on: 'push' },
  instructions: 'Say hello.',
});
const ZERO = { PENDING: 0, RUNNING: 0, COMPLETED: 0, FAILED: 0, CANCELLED: 0, SKIPPED: 0 };

describe.each(BINDINGS)('the overview on %s', (binding) => {
  let api: Harness;
  let now = Date.parse('2025-03-01T10:30:00.000Z');
  let ids: { first: string; second: string };
  beforeAll(async () => {
    api = await startHarness(binding, { platform: { clock: { now: () => new Date(now) } } });
    const first = (await api.request('POST', BASE, { json: automation('First') })).json.id;
    const second = (await api.request('POST', BASE, { json: automation('Second') })).json.id;
    ids = { first, second };
    const dispatch = async (id: string): Promise<string> => (await api.request('POST', `${BASE}/${id}/dispatch`)).json.id;
    const finish = async (run: string, status: 'COMPLETED' | 'FAILED', startedAt: string | null, completedAt: string) => {
      if (startedAt !== null) {
        expect(await api.storage.runs.transition('acme', run, { from: ['PENDING'] }, { status: 'RUNNING', attempt: 1, started_at: startedAt })).not.toBeNull();
      }
      expect(await api.storage.runs.transition('acme', run, { from: ['PENDING', 'RUNNING'] }, { status, completed_at: completedAt })).not.toBeNull();
    };
    // At 10:30: a run of First that takes 2 min, one that fails after 1 min, and one of Second
    // that fails 30 s after it was created, never having started.
    await finish(await dispatch(first), 'COMPLETED', '2025-03-01T10:31:00.000Z', '2025-03-01T10:33:00.000Z');
    await finish(await dispatch(first), 'FAILED', '2025-03-01T10:31:00.000Z', '2025-03-01T10:32:00.000Z');
    await finish(await dispatch(second), 'FAILED', null, '2025-03-01T10:30:30.000Z');
    // At 11:10: one of Second left queued, one of First that takes 10 min.
    now = Date.parse('2025-03-01T11:10:00.000Z');
    await dispatch(second);
    await finish(await dispatch(first), 'COMPLETED', '2025-03-01T11:10:00.000Z', '2025-03-01T11:20:00.000Z');
    now = Date.parse('2025-03-01T12:00:00.000Z');
  });
  afterAll(() => api.close());

  it('counts the runs by status per hour, with the success rate, the durations, the queue and the failing automations', async () => {
    const response = await api.request('GET', `${BASE}/overview?from=2025-03-01T10:00:00Z&to=2025-03-01T12:00:00Z`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      from: '2025-03-01T10:00:00.000Z',
      to: '2025-03-01T12:00:00.000Z',
      bucket: 'hour',
      buckets: [
        { start: '2025-03-01T10:00:00.000Z', counts: { ...ZERO, COMPLETED: 1, FAILED: 2 } },
        { start: '2025-03-01T11:00:00.000Z', counts: { ...ZERO, COMPLETED: 1, PENDING: 1 } },
      ],
      totals: { ...ZERO, COMPLETED: 2, FAILED: 2, PENDING: 1 },
      success_rate: 0.5,
      // 30 s, 1 min, 2 min, 10 min.
      duration_ms: { p50: 60_000, p95: 600_000 },
      queue: { pending: 1, oldest_pending_at: '2025-03-01T11:10:00.000Z' },
      failing_automations: [
        { automation_id: ids.second, name: 'Second', failed: 1, finished: 1 },
        { automation_id: ids.first, name: 'First', failed: 1, finished: 3 },
      ],
    });
  });

  it('counts by day when asked, and over the last 7 days by day when no period is given', async () => {
    const daily = await api.request('GET', `${BASE}/overview?from=2025-03-01T10:00:00Z&to=2025-03-01T12:00:00Z&bucket=day`);
    expect(daily.json.buckets).toEqual([{ start: '2025-03-01T00:00:00.000Z', counts: { ...ZERO, COMPLETED: 2, FAILED: 2, PENDING: 1 } }]);
    const recent = await api.request('GET', `${BASE}/overview`);
    expect(recent.status).toBe(200);
    expect(recent.json).toMatchObject({ from: '2025-02-22T12:00:00.000Z', to: '2025-03-01T12:00:00.000Z', bucket: 'day' });
    expect(recent.json.buckets.map((bucket: { start: string }) => bucket.start.slice(0, 10))).toEqual([
      '2025-02-22',
      '2025-02-23',
      '2025-02-24',
      '2025-02-25',
      '2025-02-26',
      '2025-02-27',
      '2025-02-28',
      '2025-03-01',
    ]);
    expect(recent.json.totals).toEqual({ ...ZERO, COMPLETED: 2, FAILED: 2, PENDING: 1 });
  });

  it('shows another org nothing of these runs', async () => {
    const theirs = await api.request('GET', `${BASE}/overview?from=2025-03-01T10:00:00Z&to=2025-03-01T12:00:00Z`, { as: 'mallory' });
    expect(theirs.status).toBe(200);
    expect(theirs.json).toMatchObject({
      totals: ZERO,
      success_rate: null,
      duration_ms: { p50: null, p95: null },
      queue: { pending: 0, oldest_pending_at: null },
      failing_automations: [],
    });
  });

  it.each([
    ['from not before to', 'from=2025-03-01T12:00:00Z&to=2025-03-01T12:00:00Z', ['query', 'from']],
    ['a period over 90 days', 'from=2024-11-01T00:00:00Z&to=2025-03-01T00:00:00Z', ['query', 'from']],
    ['hours over 7 days', 'from=2025-02-20T00:00:00Z&to=2025-03-01T00:00:00Z&bucket=hour', ['query', 'bucket']],
    ['an unknown bucket', 'bucket=week', ['query', 'bucket']],
    ['a bad time', 'from=yesterday', ['query', 'from']],
    ['an unknown parameter', 'period=7d', ['query', 'period']],
  ])('answers 422 naming the parameter for %s', async (_label, query, loc) => {
    const response = await api.request('GET', `${BASE}/overview?${query}`);
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
  });
});
