/** Automations: the list. One automation's form and its filter tester are on its own page (automation-edit.tsx). */
import type { Automation } from '@agent-platform/client';
import { Link, Muted, PageTitle, Time } from '../components.js';
import { useResource } from '../hooks.js';
import { segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { pageCaption, ResourceTable, type Column } from '../table.js';
import { patternsOf } from './automation-draft.js';

const COLUMNS: Column<Automation>[] = [
  { header: 'Name', cell: (automation) => <Link to={`automations/${segment(automation.id)}`}>{automation.name}</Link> },
  { header: 'Source', cell: (automation) => automation.trigger.source },
  { header: 'Events', cell: (automation) => <code>{patternsOf(automation.trigger.on).join(', ')}</code> },
  { header: 'Filter', cell: (automation) => (automation.trigger.filter ? <code>{automation.trigger.filter}</code> : <Muted>none</Muted>) },
  { header: 'Created by', cell: (automation) => automation.created_by },
  { header: 'Enabled', cell: (automation) => (automation.enabled ? 'yes' : 'no') },
  { header: 'Last triggered', cell: (automation) => <Time value={automation.last_triggered_at} /> },
  { header: 'Runs', cell: (automation) => <Link to={`runs?automation=${encodeURIComponent(automation.id)}`}>Runs of {automation.name}</Link> },
];

export function AutomationsPage() {
  const client = useClient();
  const can = usePermissions();
  const automations = useResource((signal) => client.automations.list({ limit: 100 }, { signal }), []);
  return (
    <>
      <PageTitle>Automations</PageTitle>
      <p>An automation starts a run for each event of its source whose key matches one of its patterns and whose payload passes its filter.</p>
      {can.write && (
        <p>
          <Link to="automations/new" class="button-link">
            New automation
          </Link>
        </p>
      )}
      <ResourceTable
        resource={automations}
        rowsOf={(data) => data.automations}
        rowKey={(automation) => automation.id}
        columns={COLUMNS}
        caption={(rows, data) => pageCaption(rows.length, data.total, 'automations')}
        empty="No automations yet."
        errorContext="Loading the automations failed"
      />
    </>
  );
}
