/**
 * Usage: what the org's model calls cost over a period (the last 7, 30 or 90 days, or chosen
 * dates; UTC days, as the API sums them) — the totals, a bar per day, and the spend by user, by
 * automation and by model — and the org's budgets, each with its spend in the current period.
 * Owners set and remove budgets here; every role reads.
 */
import type { Automation, BudgetPeriod, BudgetScope, BudgetView, Usage, UsageTotals } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Badge, ConfirmButton, ErrorNotice, fieldValue, Link, Muted, PageTitle, StatusNote } from '../components.js';
import { ActionForm, Submit } from '../forms.js';
import { useAction, useResource } from '../hooks.js';
import { NeedsRole } from '../role-note.js';
import { segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { Table, type Column } from '../table.js';
import { formatDay, formatNumber, formatPercent, formatUsd, formatUtc } from '../format.js';
import { budgetShare, daysBetween, lastDays } from './usage-figures.js';

const PRESETS = [
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
  ['custom', 'Chosen dates'],
] as const;
type Preset = (typeof PRESETS)[number][0];

const SCOPES: readonly [BudgetScope, string][] = [
  ['org', 'The whole org'],
  ['user', 'One user'],
  ['automation', 'One automation'],
];
const PERIODS: readonly [BudgetPeriod, string][] = [
  ['month', 'Per month (UTC)'],
  ['day', 'Per day (UTC)'],
];

/** Automation names by id, from the org's automations (the first 100). */
type Names = ReadonlyMap<string, string>;

const tokens = (totals: UsageTotals) => totals.prompt_tokens + totals.completion_tokens;

/** The figure columns every breakdown table shares, after its own first column. */
function figureColumns<T extends UsageTotals>(total: number): Column<T>[] {
  return [
    { header: 'Spend', cell: (row) => formatUsd(row.cost_usd) },
    { header: 'Share', cell: (row) => (total > 0 ? formatPercent(row.cost_usd / total) : '—') },
    { header: 'Model calls', cell: (row) => formatNumber(row.llm_calls) },
    { header: 'Prompt tokens', cell: (row) => formatNumber(row.prompt_tokens) },
    { header: 'Completion tokens', cell: (row) => formatNumber(row.completion_tokens) },
  ];
}

/** An automation by name, linked to its page; `null` is the spend of conversations started through the API. */
function automationCell(id: string | null, names: Names): ComponentChildren {
  if (id === null) return 'API conversations';
  return <Link to={`automations/${segment(id)}`}>{names.get(id) ?? id}</Link>;
}

export function UsagePage() {
  const client = useClient();
  const [preset, setPreset] = useState<Preset>('30');
  const [range, setRange] = useState(() => lastDays(30));
  const usage = useResource((signal) => client.budgets.usage(range, { signal }), [range.from, range.to]);
  const automations = useResource((signal) => client.automations.list({ limit: 100 }, { signal }), []);
  const names: Names = new Map((automations.data?.automations ?? []).map((automation) => [automation.id, automation.name]));

  const choose = (event: Event) => {
    const value = (event.currentTarget as HTMLSelectElement).value as Preset;
    setPreset(value);
    if (value !== 'custom') setRange(lastDays(Number(value)));
  };
  const setDay = (end: 'from' | 'to') => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    if (value) setRange((previous) => ({ ...previous, [end]: value }));
  };

  return (
    <>
      <PageTitle>Usage</PageTitle>
      <p>What the org's model calls cost, from the spend the platform records as agents work. Days are UTC calendar days.</p>
      <search aria-label="Choose the period">
        <form class="filters usage-period" onSubmit={(event) => event.preventDefault()}>
          <label>
            Period
            <select value={preset} onChange={choose}>
              {PRESETS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {preset === 'custom' && (
            <>
              <label>
                From
                <input type="date" value={range.from} max={range.to} onChange={setDay('from')} />
              </label>
              <label>
                To
                <input type="date" value={range.to} min={range.from} onChange={setDay('to')} />
              </label>
            </>
          )}
        </form>
      </search>
      <ErrorNotice error={usage.error} context="Loading the usage failed" />
      {usage.data === undefined && usage.loading && <p aria-busy="true">Loading the usage…</p>}
      {usage.data && <UsageReport usage={usage.data} names={names} />}
      <Budgets automations={automations.data?.automations ?? []} names={names} />
    </>
  );
}

function UsageReport({ usage, names }: { usage: Usage; names: Names }) {
  const { total } = usage;
  const period = `${formatDay(usage.from)} to ${formatDay(usage.to)}`;
  return (
    <>
      <section aria-labelledby="usage-totals">
        <h2 id="usage-totals">Totals, {period}</h2>
        <dl class="usage-totals">
          <div>
            <dt>Spend</dt>
            <dd>{formatUsd(total.cost_usd)}</dd>
          </div>
          <div>
            <dt>Model calls</dt>
            <dd>{formatNumber(total.llm_calls)}</dd>
          </div>
          <div>
            <dt>Tokens</dt>
            <dd>
              {formatNumber(tokens(total))}
              <small class="detail">
                {formatNumber(total.prompt_tokens)} prompt, {formatNumber(total.completion_tokens)} completion
              </small>
            </dd>
          </div>
        </dl>
      </section>
      {total.llm_calls === 0 && total.cost_usd === 0 ? (
        <p>No model calls were recorded from {period}.</p>
      ) : (
        <>
          <DailyChart usage={usage} />
          <section aria-labelledby="usage-by-user">
            <h2 id="usage-by-user">By user</h2>
            <Table
              caption="Spend by user, most first"
              columns={[{ header: 'User', cell: (row) => row.user_id }, ...figureColumns<Usage['by_user'][number]>(total.cost_usd)]}
              rows={usage.by_user}
              rowKey={(row) => row.user_id}
            />
          </section>
          <section aria-labelledby="usage-by-automation">
            <h2 id="usage-by-automation">By automation</h2>
            <Table
              caption="Spend by automation, most first"
              columns={[
                { header: 'Automation', cell: (row) => automationCell(row.automation_id, names) },
                ...figureColumns<Usage['by_automation'][number]>(total.cost_usd),
              ]}
              rows={usage.by_automation}
              rowKey={(row) => row.automation_id ?? ''}
            />
          </section>
          <section aria-labelledby="usage-by-model">
            <h2 id="usage-by-model">By model</h2>
            <Table
              caption="Spend by model, most first"
              columns={[{ header: 'Model', cell: (row) => <code>{row.model}</code> }, ...figureColumns<Usage['by_model'][number]>(total.cost_usd)]}
              rows={usage.by_model}
              rowKey={(row) => row.model}
            />
          </section>
        </>
      )}
    </>
  );
}

/**
 * A bar per day of the period, in SVG (its sizes are attributes: the console's Content-Security-
 * Policy allows no inline style). The picture is named by a summary; the numbers are in the
 * table below it.
 */
function DailyChart({ usage }: { usage: Usage }) {
  const spent = new Map(usage.by_day.map((row) => [row.day, row]));
  const days = daysBetween(usage.from, usage.to);
  const highest = usage.by_day.reduce((top, row) => (row.cost_usd > (top?.cost_usd ?? -1) ? row : top), usage.by_day[0]);
  const max = highest?.cost_usd ?? 0;
  const width = 10;
  const summary = highest
    ? `Spend by day, ${formatDay(usage.from)} to ${formatDay(usage.to)}: ${formatNumber(usage.by_day.length)} of ${formatNumber(days.length)} days with spend, the most ${formatUsd(max)} on ${formatDay(highest.day)}`
    : 'Spend by day: none';
  return (
    <section aria-labelledby="usage-by-day">
      <h2 id="usage-by-day">By day</h2>
      <figure class="usage-chart">
        <svg role="img" aria-label={summary} viewBox={`0 0 ${Math.max(1, days.length) * width} 100`} preserveAspectRatio="none" focusable="false">
          {days.map((day, index) => {
            const cost = spent.get(day)?.cost_usd ?? 0;
            // A day with any spend gets a visible bar, however small beside the highest.
            const height = cost > 0 && max > 0 ? Math.max(1.5, (cost / max) * 100) : 0;
            return (
              <rect key={day} x={index * width + 1} y={100 - height} width={width - 2} height={height}>
                <title>
                  {formatDay(day)}: {formatUsd(cost)}
                </title>
              </rect>
            );
          })}
        </svg>
        <figcaption class="usage-axis">
          <span>{formatDay(usage.from)}</span>
          <span>highest day {formatUsd(max)}</span>
          <span>{formatDay(usage.to)}</span>
        </figcaption>
      </figure>
      <details>
        <summary>Spend by day as a table</summary>
        <Table
          caption="Spend by day, oldest first (days without spend left out)"
          columns={[{ header: 'Day (UTC)', cell: (row) => <time dateTime={row.day}>{formatDay(row.day)}</time> }, ...figureColumns(usage.total.cost_usd)]}
          rows={usage.by_day}
          rowKey={(row) => row.day}
        />
      </details>
    </section>
  );
}

/** A budget's subject in words: the org, a user, an automation by name (linked). */
function subjectCell(budget: BudgetView, names: Names): ComponentChildren {
  if (budget.scope === 'org') return 'The org';
  if (budget.subject_id === null) return budget.scope;
  if (budget.scope === 'user') return <>User {budget.subject_id}</>;
  return <>Automation {automationCell(budget.subject_id, names)}</>;
}

function subjectText(budget: BudgetView, names: Names): string {
  if (budget.scope === 'org') return 'the org';
  if (budget.scope === 'user') return `user ${budget.subject_id}`;
  return `automation ${(budget.subject_id && names.get(budget.subject_id)) ?? budget.subject_id}`;
}

function Budgets({ automations, names }: { automations: readonly Automation[]; names: Names }) {
  const client = useClient();
  const can = usePermissions();
  const budgets = useResource((signal) => client.budgets.list({ signal }), []);
  const [saved, setSaved] = useState<string | null>(null);
  const remove = useAction(async (budget: BudgetView) => {
    setSaved(null);
    await client.budgets.delete(budget.id);
    setSaved(`Budget of ${subjectText(budget, names)} per ${budget.period} removed.`);
    budgets.reload();
  });

  const columns: Column<BudgetView>[] = [
    { header: 'Caps', cell: (budget) => subjectCell(budget, names) },
    { header: 'Period', cell: (budget) => `per ${budget.period}` },
    {
      header: 'Spent of limit',
      cell: (budget) => {
        const label = `${formatUsd(budget.spent_usd)} of ${formatUsd(budget.limit_usd)}`;
        return (
          <div class="budget-spend">
            <progress
              class={budget.exceeded ? 'exceeded' : undefined}
              value={budgetShare(budget.spent_usd, budget.limit_usd) * 100}
              max={100}
              aria-label={`Spent by ${subjectText(budget, names)} per ${budget.period}: ${label}`}
            />
            <span>
              {label}
              <small class="detail">since {formatDay(budget.period_start)}</small>
            </span>
          </div>
        );
      },
    },
    { header: 'State', cell: (budget) => (budget.exceeded ? <Badge value="exceeded" /> : <Muted>within</Muted>) },
    { header: 'Resets', cell: (budget) => <time dateTime={budget.resets_at}>{formatUtc(budget.resets_at)}</time> },
    { header: 'Set by', cell: (budget) => budget.updated_by ?? <Muted>—</Muted> },
  ];
  if (can.manageBudgets) {
    columns.push({
      header: 'Actions',
      cell: (budget) => (
        <div class="actions">
          <ConfirmButton
            label="Remove"
            hidden={`budget of ${subjectText(budget, names)} per ${budget.period}`}
            question={`Remove the budget of ${subjectText(budget, names)} per ${budget.period}?`}
            confirm="Remove budget"
            onConfirm={() => void remove.run(budget)}
          />
        </div>
      ),
    });
  }

  return (
    <section aria-labelledby="budgets">
      <h2 id="budgets">Budgets</h2>
      <p>
        A budget caps the recorded model spend of the org, a user or an automation per UTC day or month. Once it is reached, runs it covers do not start,
        running agents stop before their next model call, and a dispatch is refused until it resets.
      </p>
      {saved && <StatusNote>{saved}</StatusNote>}
      <ErrorNotice error={remove.error} context="Removing the budget failed" />
      <ErrorNotice error={budgets.error} context="Loading the budgets failed" />
      {budgets.data === undefined && budgets.loading && <p aria-busy="true">Loading the budgets…</p>}
      {budgets.data &&
        (budgets.data.budgets.length === 0 ? (
          <p>No budgets: spend is not capped.</p>
        ) : (
          <Table caption={`${budgets.data.budgets.length} budgets`} columns={columns} rows={budgets.data.budgets} rowKey={(budget) => budget.id} />
        ))}
      {can.manageBudgets ? (
        <BudgetForm
          automations={automations}
          onSaved={(budget) => {
            setSaved(`Budget of ${subjectText(budget, names)} per ${budget.period} set to ${formatUsd(budget.limit_usd)}.`);
            budgets.reload();
          }}
        />
      ) : (
        <NeedsRole needed="owner" what="Setting and removing budgets" />
      )}
    </section>
  );
}

function BudgetForm({ automations, onSaved }: { automations: readonly Automation[]; onSaved: (budget: BudgetView) => void }) {
  const client = useClient();
  const [scope, setScope] = useState<BudgetScope>('org');
  const save = useAction(async (form: HTMLFormElement) => {
    const subject = scope === 'org' ? null : fieldValue(form, 'subject_id');
    const limit = fieldValue(form, 'limit_usd');
    const budget = await client.budgets.set({
      scope,
      ...(subject === null ? {} : { subject_id: subject }),
      period: fieldValue(form, 'period') as BudgetPeriod,
      // Sent as typed: a value the API refuses comes back as its 422, shown under the button.
      limit_usd: limit === null ? Number.NaN : Number(limit),
    });
    onSaved(budget);
  });
  return (
    <section aria-labelledby="set-budget" class="budget-form">
      <h3 id="set-budget">Set a budget</h3>
      <ActionForm aria-labelledby="set-budget" onSubmit={(form) => save.run(form)}>
        <div class="grid">
          <label>
            Caps
            <select name="scope" value={scope} onChange={(event) => setScope((event.currentTarget as HTMLSelectElement).value as BudgetScope)}>
              {SCOPES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {scope === 'user' && (
            <label>
              User id
              <input name="subject_id" type="text" required autocomplete="off" spellcheck={false} />
            </label>
          )}
          {scope === 'automation' && automations.length === 0 && <p class="muted">The org has no automations yet.</p>}
          {scope === 'automation' && automations.length > 0 && (
            <label>
              Automation
              <select name="subject_id" required>
                {automations.map((automation) => (
                  <option key={automation.id} value={automation.id}>
                    {automation.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label>
            Period
            <select name="period">
              {PERIODS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Limit (USD)
            <input name="limit_usd" type="number" min="0" step="any" inputMode="decimal" required />
          </label>
        </div>
        <p>
          <small class="muted">A budget with the same scope, subject and period is replaced: its new limit counts from now on, its spend is kept.</small>
        </p>
        <Submit action={save} failed="Setting the budget failed">
          Set budget
        </Submit>
      </ActionForm>
    </section>
  );
}
