/**
 * The org's audit log (admins and owners): who changed what, oldest first as the API pages it
 * ("Load more" follows `next_after`), filtered by action and actor; a check of the hash chain; and
 * the matching entries as an NDJSON download (fetched with the key, saved through a Blob URL).
 */
import type { RouteResponse } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { formatNumber } from '../format.js';
import { useAction, useResource } from '../hooks.js';
import { NeedsRole } from '../role-note.js';
import { segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { Table, type Column } from '../table.js';

type EntriesPage = RouteResponse<'GET /api/automation/v1/audit'>;
type AuditEntry = EntriesPage['entries'][number];
type AuditVerification = RouteResponse<'GET /api/automation/v1/audit/verify'>;

const PAGE_SIZE = 50;

/** The console page of a target, for the kinds it has pages for. */
function targetPath(type: string, id: string): string | null {
  switch (type) {
    case 'automation':
      return `automations/${segment(id)}`;
    case 'run':
      return `runs/${segment(id)}`;
    case 'conversation':
      return `conversations/${segment(id)}`;
    case 'subscription':
      return `subscriptions/${segment(id)}`;
    case 'webhook':
      return 'webhooks';
    case 'member':
      return 'members';
    default:
      return null;
  }
}

/** A target in words, linked to its page when the console has one. */
function targetCell(target: AuditEntry['target']): ComponentChildren {
  if (target.id === null) return target.type;
  const path = targetPath(target.type, target.id);
  const label = `${target.type} ${target.id}`;
  return path ? <Link to={path}>{label}</Link> : label;
}

const COLUMNS: Column<AuditEntry>[] = [
  { header: '#', cell: (entry) => entry.seq },
  { header: 'Time', cell: (entry) => <Time value={entry.at} /> },
  {
    header: 'Actor',
    cell: (entry) => (
      <>
        {entry.actor.id ?? <Muted>the platform</Muted>}
        <small class="detail">
          {entry.actor.kind}
          {entry.actor.role ? `, ${entry.actor.role}` : ''}
        </small>
      </>
    ),
  },
  { header: 'Action', cell: (entry) => <code>{entry.action}</code> },
  { header: 'Target', cell: (entry) => targetCell(entry.target) },
  {
    header: 'Details',
    cell: (entry) => (Object.keys(entry.details).length === 0 ? <Muted>none</Muted> : <code class="audit-details">{JSON.stringify(entry.details)}</code>),
  },
];

export function AuditPage() {
  const can = usePermissions();
  if (!can.admin) {
    return (
      <>
        <PageTitle>Audit log</PageTitle>
        <NeedsRole needed="admin" what="Reading the audit log" />
      </>
    );
  }
  return <AuditLog />;
}

function AuditLog() {
  const client = useClient();
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const filters = { ...(action ? { action } : {}), ...(actor ? { actor } : {}) };
  // The first page follows the filters; "Load more" appends the pages after it (reset with the filters).
  const first = useResource(
    (signal) => client.request('GET /api/automation/v1/audit', { query: { limit: PAGE_SIZE, ...filters } }, { signal }),
    [action, actor],
  );
  const [more, setMore] = useState<EntriesPage[]>([]);
  const [verification, setVerification] = useState<AuditVerification | null>(null);
  const pages = first.data ? [first.data, ...more] : [];
  const entries = pages.flatMap((page) => page.entries);
  const nextAfter = pages.at(-1)?.next_after ?? null;
  const loadMore = useAction(async (after: number) => {
    const page = await client.request('GET /api/automation/v1/audit', { query: { limit: PAGE_SIZE, after, ...filters } });
    setMore((previous) => [...previous, page]);
  });
  const filter = (set: (value: string) => void) => (event: Event) => {
    set((event.currentTarget as HTMLInputElement).value.trim());
    setMore([]);
  };

  const verify = useAction(async () => {
    setVerification(null);
    setVerification(await client.request('GET /api/automation/v1/audit/verify'));
  });
  const download = useAction(async () => {
    const blob = await client.request('GET /api/automation/v1/audit/export', { query: filters });
    const url = URL.createObjectURL(new Blob([blob], { type: 'application/x-ndjson' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'audit-log.ndjson';
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });

  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>
        Who changed what in the org, oldest first: keys, settings, webhooks, subscriptions, automations, cancelled runs, approved or rejected actions. Each
        entry holds the hash of the one before, so an edited, removed or reordered entry breaks the chain.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void verify.run()} aria-busy={verify.busy ? 'true' : undefined}>
          Verify chain
        </button>
        <button type="button" class="secondary" onClick={() => void download.run()} aria-busy={download.busy ? 'true' : undefined}>
          Download NDJSON
        </button>
      </div>
      <ErrorNotice error={verify.error} context="Verifying the chain failed" />
      <ErrorNotice error={download.error} context="Downloading the audit log failed" />
      {verification &&
        (verification.valid ? (
          <StatusNote>Chain intact: {formatNumber(verification.checked)} entries</StatusNote>
        ) : (
          <p role="alert" class="notice error">
            Broken at entry {verification.broken_at} ({formatNumber(verification.checked)} entries before it hold)
          </p>
        ))}
      <search aria-label="Filter the audit log">
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <label>
            Action
            <input type="search" value={action} placeholder="every action, e.g. automation.created" onInput={filter(setAction)} />
          </label>
          <label>
            Actor
            <input type="search" value={actor} placeholder="every actor" onInput={filter(setActor)} />
          </label>
        </form>
      </search>
      <ErrorNotice error={first.error} context="Loading the audit log failed" />
      <ErrorNotice error={loadMore.error} context="Loading more entries failed" />
      {first.data === undefined && first.loading && <p aria-busy="true">Loading the audit log…</p>}
      {first.data !== undefined &&
        (entries.length === 0 ? (
          <p>No entries{action || actor ? ' match these filters' : ' yet'}.</p>
        ) : (
          <Table columns={COLUMNS} rows={entries} rowKey={(entry) => String(entry.seq)} caption={`${entries.length} audit entries, oldest first`} />
        ))}
      {nextAfter !== null && (
        <button type="button" class="secondary" onClick={() => void loadMore.run(nextAfter)} aria-busy={loadMore.busy ? 'true' : undefined}>
          Load more
        </button>
      )}
    </>
  );
}
