/** Sandboxes: the caller's, live; pause, resume, delete. Session keys are never shown. */
import { Badge, ConfirmButton, ErrorNotice, Hidden, PageTitle, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { useClient } from '../session.js';
import { useState } from 'preact/hooks';

export function SandboxesPage() {
  const client = useClient();
  const sandboxes = useResource((signal) => client.sandboxes.search({ limit: 100 }, { signal }), [], { pollMs: 3_000 });
  const [note, setNote] = useState<string | null>(null);
  const act = useAction(async (action: 'pause' | 'resume' | 'delete', id: string) => {
    await client.sandboxes[action](id);
    setNote(`Sandbox ${id} ${action === 'pause' ? 'paused' : action === 'resume' ? 'resumed' : 'deleted'}.`);
    sandboxes.reload();
  });
  return (
    <>
      <PageTitle>Sandboxes</PageTitle>
      <p>Where agents run. Pausing freezes everything in a sandbox; deleting removes it and its files.</p>
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={act.error} context="The sandbox action failed" />
      <ErrorNotice error={sandboxes.error} context="Loading the sandboxes failed" />
      {sandboxes.data &&
        (sandboxes.data.items.length === 0 ? (
          <p>No sandboxes.</p>
        ) : (
          <div class="overflow-auto">
            <table class="striped">
              <caption>Your sandboxes, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Sandbox</th>
                  <th scope="col">Status</th>
                  <th scope="col">Spec</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {sandboxes.data.items.map((sandbox) => (
                  <tr key={sandbox.id}>
                    <td>
                      <code>{sandbox.id}</code>
                    </td>
                    <td>
                      <Badge value={sandbox.status} />
                    </td>
                    <td>{sandbox.sandbox_spec_id}</td>
                    <td>
                      <Time value={sandbox.created_at} />
                    </td>
                    <td>
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </>
  );
}
