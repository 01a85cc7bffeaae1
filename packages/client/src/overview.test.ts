/**
 * `client.overview.get` against the real handler in process: the query goes out as the route
 * reads it, the answer parses with the server's schema, and a bad period is a typed 422.
 */
import { overviewSchema, type RunRecord } from '@agent-platform/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentPlatformError } from './index.js';
import { startInProcess, type InProcessService } from '../test-support/in-process.js';

let service: InProcessService;
const run = (id: string, status: RunRecord['status'], createdAt: string, completedAt: string | null): RunRecord => ({
  id,
  org_id: 'acme',
  automation_id: 'auto-gone',
  delivery_id: null,
  trigger: 'manual',
  event_key: null,
  status,
  attempt: 1,
  conversation_id: null,
  sandbox_id: null,
  error_detail: null,
  created_by: 'alice',
  created_at: createdAt,
  started_at: null,
  completed_at: completedAt,
  dispatch_payload_json: null,
});
beforeAll(async () => {
  service = await startInProcess();
  await service.platform.storage.runs.insertMany([
    run('run-1', 'COMPLETED', '2030-01-01T09:00:00.000Z', '2030-01-01T09:00:10.000Z'),
    run('run-2', 'FAILED', '2030-01-01T13:00:00.000Z', '2030-01-01T13:00:20.000Z'),
  ]);
});
afterAll(() => service.close());

describe('overview', () => {
  it('gets the period by day, sending from, to and bucket as the query', async () => {
    const overview = overviewSchema.parse(
      await service.client('alice').overview.get({ from: '2030-01-01T00:00:00Z', to: '2030-01-03T00:00:00Z', bucket: 'day' }),
    );
    expect(service.requests.at(-1)?.url).toBe(
      'https://agents.example.com/api/automation/v1/overview?from=2030-01-01T00%3A00%3A00Z&to=2030-01-03T00%3A00%3A00Z&bucket=day',
    );
    expect(overview.buckets.map((bucket) => [bucket.start, bucket.counts.COMPLETED, bucket.counts.FAILED])).toEqual([
      ['2030-01-01T00:00:00.000Z', 1, 1],
      ['2030-01-02T00:00:00.000Z', 0, 0],
    ]);
    expect(overview).toMatchObject({ success_rate: 0.5, duration_ms: { p50: 10_000, p95: 20_000 } });
    // The automation no longer exists: its id, without a name.
    expect(overview.failing_automations).toEqual([{ automation_id: 'auto-gone', name: null, failed: 1, finished: 2 }]);
  });

  it('answers a period backwards with a typed 422', async () => {
    const refused = await service
      .client('alice')
      .overview.get({ from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' })
      .catch((error: unknown) => error);
    expect(isAgentPlatformError(refused) && refused.status).toBe(422);
  });
});
