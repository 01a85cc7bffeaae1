/**
 * The overview the console opens on: the storage's aggregate of the org's runs in a period
 * (`runs.overview`), with every bucket of the period present, the success rate and the failing
 * automations' names. Spend by day is not repeated here: it is the usage report's
 * (`BudgetsService.usage`, `GET /api/automation/v1/usage`), which the console reads beside it.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import { validationError } from '../kernel/errors.js';
import { bucketStartOf, type OverviewBucket, type RunStatusCounts } from '../ports/runs-overview.js';
import type { Overview, OverviewQuery, RunStatusCountsView } from '../schemas/overview.js';
import type { Principal } from '../schemas/principal.js';
import { RUN_STATUSES } from '../schemas/vocabulary.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The longest period, in days. */
export const MAX_OVERVIEW_DAYS = 90;
/** The longest period counted by the hour, in days (168 buckets). */
export const MAX_HOURLY_OVERVIEW_DAYS = 7;
/** The period when none is asked: the 7 days to now. */
export const DEFAULT_OVERVIEW_DAYS = 7;
/** Periods up to this long are counted by the hour unless a bucket is asked. */
const HOURLY_BY_DEFAULT_MS = 2 * DAY_MS;

export class OverviewService {
  constructor(private readonly context: ServiceContext) {}

  async get(principal: Principal, query: OverviewQuery): Promise<Overview> {
    const to = query.to ? Date.parse(query.to) : this.context.clock.now().getTime();
    const from = query.from ? Date.parse(query.from) : to - DEFAULT_OVERVIEW_DAYS * DAY_MS;
    if (from >= to) throw validationError(['query', 'from'], `from (${new Date(from).toISOString()}) must be before to (${new Date(to).toISOString()})`);
    if (to - from > MAX_OVERVIEW_DAYS * DAY_MS) throw validationError(['query', 'from'], `an overview covers at most ${MAX_OVERVIEW_DAYS} days`);
    const bucket: OverviewBucket = query.bucket ?? (to - from <= HOURLY_BY_DEFAULT_MS ? 'hour' : 'day');
    if (bucket === 'hour' && to - from > MAX_HOURLY_OVERVIEW_DAYS * DAY_MS) {
      throw validationError(['query', 'bucket'], `hourly buckets cover at most ${MAX_HOURLY_OVERVIEW_DAYS} days; use bucket=day`);
    }
    const period = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket };
    const stored = await this.context.storage.runs.overview(principal.orgId, period);
    const counted = new Map(stored.buckets.map((each) => [Date.parse(each.start), each.counts]));
    const buckets: Overview['buckets'] = [];
    for (let start = bucketStartOf(from, bucket); start < to; start += bucket === 'hour' ? HOUR_MS : DAY_MS) {
      buckets.push({ start: new Date(start).toISOString(), counts: everyStatus(counted.get(start)) });
    }
    const totals = everyStatus(stored.totals);
    const finished = totals.COMPLETED + totals.FAILED;
    const failing = await Promise.all(
      stored.failing.map(async (each) => ({ ...each, name: (await this.context.storage.automations.get(principal.orgId, each.automation_id))?.name ?? null })),
    );
    return {
      ...period,
      buckets,
      totals,
      success_rate: finished === 0 ? null : totals.COMPLETED / finished,
      duration_ms: { p50: stored.p50DurationMs, p95: stored.p95DurationMs },
      queue: { pending: stored.pending, oldest_pending_at: stored.oldestPendingAt },
      failing_automations: failing.map(({ automation_id, name, failed, finished: done }) => ({ automation_id, name, failed, finished: done })),
    };
  }
}

function everyStatus(counts: RunStatusCounts = {}): RunStatusCountsView {
  return Object.fromEntries(RUN_STATUSES.map((status) => [status, counts[status] ?? 0])) as RunStatusCountsView;
}
