/** Sandboxes: the caller's, live; pause, resume, delete. Session keys are never shown. */
import type { Sandbox } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ConfirmButton, ErrorNotice, Hidden, PageTitle, SandboxStatusBadge, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { useClient, usePermissions } from '../session.js';
import { ResourceTable, type Column } from '../table.js';

type SandboxAction = 'pause' | 'resume' | 'delete';

const DONE: Record<SandboxAction, string> = { pause: 'paused', resume: 'resumed', delete: 'deleted' };

const COLUMNS: Column<Sandbox>[] = [
  { header: 'Sandbox', cell: (sandbox) => <code>{sandbox.id}</code> },
  { header: 'Status', cell: (sandbox) => <SandboxStatusBadge value={sandbox.status} /> },
  { header: 'Spec', cell: (sandbox) => sandbox.sandbox_spec_id },
  { header: 'Created', cell: (sandbox) => <Time value={sandbox.created_at} /> },
];

export function SandboxesPage() {
  const client = useClient();
  const can = usePermissions();
  const sandboxes = useResource((signal) => client.sandboxes.search({ limit: 100 }, { signal }), [], { pollMs: 3_000 });
  const [note, setNote] = useState<string | null>(null);
  const act = useAction(async (action: SandboxAction, id: string) => {
    await client.sandboxes[action](id);
    setNote(`Sandbox ${id} ${DONE[action]}.`);
    sandboxes.reload();
  });
  const actions: Column<Sandbox> = {
    header: 'Actions',
    cell: (sandbox) => (
      <div class="actions">
        {sandbox.status === 'RUNNING' && (
          <button type="button" class="secondary" onClick={() => void act.run('pause', sandbox.id)}>
            Pause<Hidden> sandbox {sandbox.id}</Hidden>
          </button>
        )}
        {sandbox.status === 'PAUSED' && (
          <button type="button" class="secondary" onClick={() => void act.run('resume', sandbox.id)}>
            Resume<Hidden> sandbox {sandbox.id}</Hidden>
          </button>
        )}
        <ConfirmButton
          label="Delete"
          hidden={`sandbox ${sandbox.id}`}
          question={`Delete sandbox ${sandbox.id} and everything in it?`}
          confirm="Delete sandbox"
          onConfirm={() => void act.run('delete', sandbox.id)}
        />
      </div>
    ),
  };
  return (
    <>
      <PageTitle>Sandboxes</PageTitle>
      <p>Where agents run. Pausing freezes everything in a sandbox; deleting removes it and its files.</p>
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={act.error} context="The sandbox action failed" />
      <ResourceTable
        resource={sandboxes}
        rowsOf={(data) => data.items}
        rowKey={(sandbox) => sandbox.id}
        columns={can.write ? [...COLUMNS, actions] : COLUMNS}
        caption="Your sandboxes, newest first"
        empty="No sandboxes."
        errorContext="Loading the sandboxes failed"
      />
    </>
  );
}
