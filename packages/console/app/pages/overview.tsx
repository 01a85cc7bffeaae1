/**
 * Overview, the console's home: how the org's runs went over a period (the last 24 hours, 7 or 30
 * days, kept in the address as `?period=`) — the runs created by status over time, the success
 * rate, p50/p95 duration, the queue now and its oldest run, the spend by UTC day and the
 * automations failing most. The figures are the API's aggregates (`GET /overview`, `GET /usage`),
 * asked for again every few seconds, so the page follows runs as they go.
 */
import type { RUN_STATUSES, AgentPlatformClient, Usage } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { BarChart, Legend, ShareBar, type ChartColumn, type ChartSeries } from '../charts.js';
import { ErrorNotice, Link, Muted, PageTitle, Time } from '../components.js';
import { formatDay, formatNumber, formatPercent, formatUsd } from '../format.js';
import { useResource } from '../hooks.js';
import { navigate, segment } from '../router.js';
import { useClient } from '../session.js';
import { Table } from '../table.js';
import { daysBetween } from './usage-figures.js';
import {
  formatBucket,
  formatDuration,
  OVERVIEW_PERIODS,
  overviewPath,
  periodOf,
  periodQueries,
  successRate,
  sumOf,
  type OverviewPeriod,
} from './overview-figures.js';

/** How often the page asks again: the aggregates are cheap (an index read), but not free like a list's first page. */
export const OVERVIEW_POLL_MS = 5_000;

type Overview = Awaited<ReturnType<AgentPlatformClient['overview']['get']>>;
type Status = (typeof RUN_STATUSES)[number];
type Bucket = Overview['buckets'][number];

/** The statuses stacked from the bottom: how runs ended, then those still going. */
const STACK: readonly Status[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED', 'RUNNING', 'PENDING'];
const statusSeries = (status: Status): ChartSeries => ({ key: status, label: status, class: `status-${status.toLowerCase()}` });
const SUCCESS: ChartSeries[] = [{ key: 'rate', label: 'Success rate', class: 'status-completed' }];
const SPEND: ChartSeries[] = [{ key: 'cost', label: 'Spend', class: 'chart-spend' }];

export function OverviewPage({ period: asked }: { period: string | null }) {
  const client = useClient();
  const period = periodOf(asked);
  const figures = useResource(
    async (signal) => {
      const now = Date.now();
      const queries = periodQueries(period, now);
      const [overview, usage] = await Promise.all([client.overview.get(queries.overview, { signal }), client.budgets.usage(queries.usage, { signal })]);
      return { overview, usage, now };
    },
    [period.value],
    { pollMs: OVERVIEW_POLL_MS },
  );
  const choose = (event: Event) => navigate(overviewPath(periodOf((event.currentTarget as HTMLSelectElement).value)));
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <p>How the org's runs went in the period, and the queue now. It updates every {formatNumber(OVERVIEW_POLL_MS / 1000)} seconds.</p>
      <search aria-label="Choose the period">
        <form class="filters overview-period" onSubmit={(event) => event.preventDefault()}>
          <label>
            Period
            <select value={period.value} onChange={choose}>
              {OVERVIEW_PERIODS.map((each) => (
                <option key={each.value} value={each.value}>
                  {each.label}
                </option>
              ))}
            </select>
          </label>
        </form>
      </search>
      <ErrorNotice error={figures.error} context="Loading the overview failed" />
      {figures.data === undefined && figures.loading && <p aria-busy="true">Loading the overview…</p>}
      {figures.data && <Report period={period} {...figures.data} />}
    </>
  );
}

function Report({ period, overview, usage, now }: { period: OverviewPeriod; overview: Overview; usage: Usage; now: number }) {
  const { totals, queue } = overview;
  const runs = sumOf(totals);
  const runsOf = (query: string) => `runs?${query}&age=${period.value}`;
  const oldest = queue.oldest_pending_at;
  return (
    <>
      <section aria-labelledby="overview-glance">
        <h2 id="overview-glance">{period.label}</h2>
        <dl class="overview-figures">
          <Figure term="Runs" detail={`${formatNumber(totals.RUNNING)} running, ${formatNumber(totals.PENDING)} pending`}>
            <Link to={`runs?age=${period.value}`}>{formatNumber(runs)}</Link>
          </Figure>
          <Figure term="Success rate" detail={`${formatNumber(totals.COMPLETED)} completed, ${formatNumber(totals.FAILED)} failed`}>
            {percentOrDash(overview.success_rate)}
          </Figure>
          <Figure term="Duration p50" detail={`p95 ${formatDuration(overview.duration_ms.p95)}`}>
            {formatDuration(overview.duration_ms.p50)}
          </Figure>
          <Figure term="Queued now" detail={oldest ? `oldest waiting ${formatDuration(Math.max(0, now - Date.parse(oldest)))}` : 'none waiting'}>
            <Link to="runs?status=PENDING">{formatNumber(queue.pending)}</Link>
          </Figure>
          <Figure term="Spend" detail={`${formatNumber(usage.total.llm_calls)} model calls`}>
            {formatUsd(usage.total.cost_usd)}
          </Figure>
        </dl>
      </section>
      <div class="overview-grid">
        <RunsChart overview={overview} />
        <SuccessChart overview={overview} />
        <Durations overview={overview} oldest={oldest} />
        <SpendChart usage={usage} />
        <Failing overview={overview} runsOf={runsOf} />
      </div>
    </>
  );
}

function Figure({ term, detail, children }: { term: string; detail: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>
        {children}
        <small class="detail">{detail}</small>
      </dd>
    </div>
  );
}

/** "hour" or "day (UTC)": what a bucket is, in a caption. */
const bucketWord = (overview: Overview) => (overview.bucket === 'hour' ? 'hour' : 'day (UTC)');
const bucketName = (bucket: Bucket, overview: Overview) => formatBucket(bucket.start, overview.bucket);
const axisOf = (overview: Overview, middle: string) => {
  const { buckets } = overview;
  const name = (bucket: Bucket | undefined) => (bucket ? bucketName(bucket, overview) : '');
  return [name(buckets[0]), middle, name(buckets.at(-1))] as const;
};
const percentOrDash = (share: number | null) => (share === null ? '—' : formatPercent(share));
const runsWord = (count: number) => `${formatNumber(count)} ${count === 1 ? 'run' : 'runs'}`;

function RunsChart({ overview }: { overview: Overview }) {
  const shown = STACK.filter((status) => overview.totals[status] > 0);
  const series = shown.map(statusSeries);
  const byStatus = (counts: Bucket['counts']) => shown.map((status) => `${formatNumber(counts[status])} ${status}`).join(', ');
  const rows = overview.buckets.filter((bucket) => sumOf(bucket.counts) > 0);
  const busiest = rows.reduce<Bucket | undefined>((top, bucket) => (sumOf(bucket.counts) > (top ? sumOf(top.counts) : 0) ? bucket : top), undefined);
  const most = busiest ? sumOf(busiest.counts) : 0;
  const columns: ChartColumn[] = overview.buckets.map((bucket) => ({
    key: bucket.start,
    values: bucket.counts,
    title: `${bucketName(bucket, overview)}: ${runsWord(sumOf(bucket.counts))}${sumOf(bucket.counts) > 0 ? ` (${byStatus(bucket.counts)})` : ''}`,
  }));
  const summary = `Runs created by ${bucketWord(overview)}: ${
    busiest ? `${runsWord(sumOf(overview.totals))} (${byStatus(overview.totals)}); the most ${formatNumber(most)}, ${bucketName(busiest, overview)}` : 'none'
  }`;
  const rate = (bucket: Bucket) => successRate(bucket.counts);
  return (
    <section aria-labelledby="overview-runs">
      <h2 id="overview-runs">Runs by status</h2>
      <Legend series={series} />
      <BarChart summary={summary} series={series} columns={columns} axis={axisOf(overview, `most in one ${overview.bucket}: ${formatNumber(most)}`)} />
      {rows.length > 0 && (
        <details>
          <summary>Runs by status and success rate as a table</summary>
          <Table
            caption={`Runs created by ${bucketWord(overview)} and status, oldest first (${overview.bucket}s without runs left out)`}
            columns={[
              {
                header: overview.bucket === 'hour' ? 'Hour' : 'Day (UTC)',
                cell: (bucket) => <time dateTime={bucket.start}>{bucketName(bucket, overview)}</time>,
              },
              ...shown.map((status) => ({ header: status, cell: (bucket: Bucket) => formatNumber(bucket.counts[status]) })),
              { header: 'Total', cell: (bucket) => formatNumber(sumOf(bucket.counts)) },
              { header: 'Success rate', cell: (bucket) => percentOrDash(rate(bucket)) },
            ]}
            rows={rows}
            rowKey={(bucket) => bucket.start}
          />
        </details>
      )}
    </section>
  );
}

function SuccessChart({ overview }: { overview: Overview }) {
  let lowest: { bucket: Bucket; rate: number } | undefined;
  const columns: ChartColumn[] = overview.buckets.map((bucket) => {
    const rate = successRate(bucket.counts);
    if (rate !== null && (lowest === undefined || rate < lowest.rate)) lowest = { bucket, rate };
    return {
      key: bucket.start,
      values: { rate: rate ?? 0 },
      title: `${bucketName(bucket, overview)}: ${rate === null ? 'no finished runs' : formatPercent(rate)}`,
    };
  });
  const summary = `Success rate by ${bucketWord(overview)}: ${
    overview.success_rate === null || !lowest
      ? 'no finished runs'
      : `${formatPercent(overview.success_rate)} over the period; the lowest ${formatPercent(lowest.rate)}, ${bucketName(lowest.bucket, overview)}`
  }`;
  return (
    <section aria-labelledby="overview-success">
      <h2 id="overview-success">Success rate</h2>
      <p class="muted">Completed of the finished (completed or failed) runs; each {overview.bucket}'s is in the runs table.</p>
      <BarChart summary={summary} series={SUCCESS} columns={columns} max={1} axis={axisOf(overview, `top: ${formatPercent(1)}`)} />
    </section>
  );
}

function Durations({ overview, oldest }: { overview: Overview; oldest: string | null }) {
  const { p50, p95 } = overview.duration_ms;
  const rows = [
    { name: 'p50 (median)', ms: p50 },
    { name: 'p95', ms: p95 },
  ];
  return (
    <section aria-labelledby="overview-durations">
      <h2 id="overview-durations">Duration and queue</h2>
      {p95 === null ? (
        <p>No run created in the period has finished yet.</p>
      ) : (
        <Table
          caption="Duration of the period's finished runs (completed or failed), from start to end"
          columns={[
            { header: 'Percentile', cell: (row) => row.name },
            { header: 'Duration', cell: (row) => formatDuration(row.ms) },
            {
              header: 'Against p95',
              cell: (row) => (
                <ShareBar share={p95 > 0 ? (row.ms ?? 0) / p95 : 1} label={`${row.name}: ${formatDuration(row.ms)} of a p95 of ${formatDuration(p95)}`} />
              ),
            },
          ]}
          rows={rows}
          rowKey={(row) => row.name}
        />
      )}
      <p>
        {overview.queue.pending === 0 ? (
          'No run is waiting to start.'
        ) : (
          <>
            {runsWord(overview.queue.pending)} waiting to start (whenever created); the oldest since <Time value={oldest} />.
          </>
        )}
      </p>
    </section>
  );
}

function SpendChart({ usage }: { usage: Usage }) {
  const spent = new Map(usage.by_day.map((row) => [row.day, row]));
  const days = daysBetween(usage.from, usage.to);
  const highest = usage.by_day.reduce<Usage['by_day'][number] | undefined>((top, row) => (row.cost_usd > (top?.cost_usd ?? -1) ? row : top), undefined);
  const columns: ChartColumn[] = days.map((day) => {
    const row = spent.get(day);
    return {
      key: day,
      values: { cost: row?.cost_usd ?? 0 },
      title: `${formatDay(day)}: ${formatUsd(row?.cost_usd ?? 0)}, ${formatNumber(row?.llm_calls ?? 0)} model calls`,
    };
  });
  const summary = highest
    ? `Spend by UTC day, ${formatDay(usage.from)} to ${formatDay(usage.to)}: ${formatUsd(usage.total.cost_usd)}; the most ${formatUsd(highest.cost_usd)}, ${formatDay(highest.day)}`
    : `Spend by UTC day, ${formatDay(usage.from)} to ${formatDay(usage.to)}: none`;
  return (
    <section aria-labelledby="overview-spend">
      <h2 id="overview-spend">Spend by day</h2>
      <p class="muted">
        On each UTC day the period touches; <Link to="usage">Usage</Link> has more.
      </p>
      <BarChart
        summary={summary}
        series={SPEND}
        columns={columns}
        axis={[formatDay(usage.from), `highest day ${formatUsd(highest?.cost_usd ?? 0)}`, formatDay(usage.to)]}
      />
      {usage.by_day.length > 0 && (
        <details>
          <summary>Spend by day as a table</summary>
          <Table
            caption="Spend by UTC day, oldest first (days without spend left out)"
            columns={[
              { header: 'Day (UTC)', cell: (row) => <time dateTime={row.day}>{formatDay(row.day)}</time> },
              { header: 'Spend', cell: (row) => formatUsd(row.cost_usd) },
              { header: 'Model calls', cell: (row) => formatNumber(row.llm_calls) },
            ]}
            rows={usage.by_day}
            rowKey={(row) => row.day}
          />
        </details>
      )}
    </section>
  );
}

function Failing({ overview, runsOf }: { overview: Overview; runsOf: (query: string) => string }) {
  type Row = Overview['failing_automations'][number];
  return (
    <section aria-labelledby="overview-failing">
      <h2 id="overview-failing">Failing most</h2>
      {overview.failing_automations.length === 0 ? (
        <p>No automation's run failed in the period.</p>
      ) : (
        <Table
          caption="Automations with failed runs in the period, most failures first"
          columns={[
            {
              header: 'Automation',
              cell: (row: Row) =>
                row.name === null ? <Muted>deleted ({row.automation_id})</Muted> : <Link to={`automations/${segment(row.automation_id)}`}>{row.name}</Link>,
            },
            {
              header: 'Failed',
              cell: (row) => <Link to={runsOf(`automation=${encodeURIComponent(row.automation_id)}&status=FAILED`)}>{formatNumber(row.failed)}</Link>,
            },
            { header: 'Finished', cell: (row) => formatNumber(row.finished) },
            {
              header: 'Failed share',
              cell: (row) => {
                const share = row.finished > 0 ? row.failed / row.finished : 1;
                const text = formatPercent(share);
                return (
                  <div class="share">
                    <ShareBar share={share} class="failed" label={`${row.name ?? row.automation_id}: ${text} of its finished runs failed`} />
                    <span>{text}</span>
                  </div>
                );
              },
            },
          ]}
          rows={overview.failing_automations}
          rowKey={(row) => row.automation_id}
        />
      )}
    </section>
  );
}
