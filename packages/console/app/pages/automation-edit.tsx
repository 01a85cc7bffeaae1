/** An automation's page: create or edit it, run it now, delete it; the filter tester below the form. */
import type { Automation, WebhookView } from '@agent-platform/client';
import { GITHUB_SOURCE } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ConfirmButton, ErrorNotice, Link, PageTitle, StatusNote } from '../components.js';
import { ActionForm } from '../forms.js';
import { useAction, useResource } from '../hooks.js';
import { navigate, segment } from '../router.js';
import { NeedsRole } from '../role-note.js';
import { useClient, usePermissions, useSession } from '../session.js';
import { startedHere } from '../status-sound.js';
import { draftOf, inputOf, isGithub, withTriggerKind, type Draft, type TriggerKind } from './automation-draft.js';
import { FilterTester } from './filter-tester.js';
import { FlowControlFields } from './flow-control.js';
import { AllowedActorsFields, TriggerFields } from './trigger-fields.js';

export function AutomationEditPage({ id }: { id: string | null }) {
  const client = useClient();
  const can = usePermissions();
  const automation = useResource(async (signal) => (id ? client.automations.get(id, { signal }) : null), [id]);
  const webhooks = useResource((signal) => client.webhooks.list({ limit: 100 }, { signal }), []);
  if (!id && !can.write) {
    return (
      <>
        <PageTitle>New automation</PageTitle>
        <NeedsRole needed="member" what="Creating an automation" />
      </>
    );
  }
  if (id && !automation.data) {
    return (
      <>
        <PageTitle>Automation</PageTitle>
        <ErrorNotice error={automation.error} context="Loading the automation failed" />
        {!automation.error && <p aria-busy="true">Loading…</p>}
      </>
    );
  }
  return <AutomationForm automation={automation.data ?? null} webhooks={webhooks.data?.webhooks ?? []} onSaved={automation.reload} />;
}

function AutomationForm({ automation, webhooks, onSaved }: { automation: Automation | null; webhooks: WebhookView[]; onSaved: () => void }) {
  const client = useClient();
  const can = usePermissions();
  // A member changes only their own automations; a viewer none (the fields show, disabled).
  const editable = automation ? can.changeAutomation(automation) : can.write;
  const [draft, setDraft] = useState<Draft>(() => draftOf(automation));
  const [saved, setSaved] = useState<string | null>(null);
  const set = (field: keyof Draft) => (event: Event) => {
    const target = event.currentTarget as HTMLInputElement;
    setDraft((current) => ({ ...current, [field]: target.type === 'checkbox' ? target.checked : target.value }));
    setSaved(null);
  };
  const setKind = (kind: TriggerKind) => {
    setDraft((current) => withTriggerKind(current, kind));
    setSaved(null);
  };
  const save = useAction(async () => {
    const input = inputOf(draft);
    if (automation) {
      await client.automations.update(automation.id, input);
      setSaved('Changes saved.');
      onSaved();
    } else {
      const created = await client.automations.create(input);
      navigate(`automations/${segment(created.id)}`);
    }
  });
  const remove = useAction(async () => {
    if (!automation) return;
    await client.automations.delete(automation.id);
    navigate('automations');
  });
  const dispatch = useAction(async () => {
    if (!automation) return;
    const run = await client.automations.dispatch(automation.id, {});
    startedHere('run', run.id);
    navigate(`runs/${segment(run.id)}`);
  });
  const sources = [GITHUB_SOURCE, ...webhooks.map((webhook) => webhook.source)];
  const webhook = webhooks.find((candidate) => candidate.source === draft.source.trim()) ?? null;
  return (
    <>
      <PageTitle>{automation ? `Automation ${automation.name}` : 'New automation'}</PageTitle>
      <p>
        <Link to="automations">All automations</Link>
        {automation && (
          <>
            {' · '}
            <Link to={`runs?automation=${encodeURIComponent(automation.id)}`}>Runs of {automation.name}</Link>
          </>
        )}
      </p>
      {automation && <Owner automation={automation} editable={editable} />}
      <ActionForm aria-label={automation ? 'Edit automation' : 'New automation'} onSubmit={() => save.run()}>
        <fieldset disabled={!editable}>
          <label>
            Name
            <input name="name" required maxLength={500} value={draft.name} onInput={set('name')} />
          </label>
          <TriggerFields draft={draft} stored={automation} sources={sources} onChange={set} onKind={setKind} />
          <label>
            Filter
            <textarea name="filter" rows={2} value={draft.filter} onInput={set('filter')} aria-describedby="filter-help" spellcheck={false} />
          </label>
          <small id="filter-help">
            Optional. A JMESPath expression over the payload, with <code>icontains</code>, <code>glob</code>, <code>regex</code> and more; the automation runs
            when it is true.
          </small>
          <label>
            Instructions
            <textarea name="instructions" required rows={4} value={draft.instructions} onInput={set('instructions')} />
          </label>
          <label>
            {/* biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox styled as a switch (Pico); its checked state is the native one, and ARIA in HTML says not to add aria-checked to an input type=checkbox */}
            <input name="enabled" type="checkbox" role="switch" checked={draft.enabled} onChange={set('enabled')} />
            Enabled
          </label>
          {isGithub(draft) && (
            <>
              <label>
                <input name="reportToGithub" type="checkbox" checked={draft.reportToGithub} onChange={set('reportToGithub')} aria-describedby="report-help" />
                Report back on GitHub
              </label>
              <small id="report-help">
                A 👀 reaction when a run starts, and one comment with its outcome in the issue or pull request, with the owner's GitHub token.
              </small>
              <AllowedActorsFields draft={draft} onChange={set} />
            </>
          )}
          <FlowControlFields draft={draft} onChange={set} />
          <details>
            <summary>More options</summary>
            <div class="grid">
              <label>
                Timeout (seconds)
                <input name="timeout" type="number" min={1} max={86400} value={draft.timeout} onInput={set('timeout')} />
              </label>
              <label>
                Model
                <input name="llm_model" value={draft.llmModel} onInput={set('llmModel')} placeholder="the owner's" />
              </label>
            </div>
            <div class="grid">
              <label>
                Repository
                <input name="selected_repository" value={draft.repository} onInput={set('repository')} placeholder="owner/name" />
              </label>
              <label>
                Sandbox spec
                <input name="sandbox_spec_id" value={draft.sandboxSpec} onInput={set('sandboxSpec')} placeholder="the default" />
              </label>
            </div>
          </details>
        </fieldset>
        <div class="actions">
          {editable && (
            <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
              {automation ? 'Save changes' : 'Create automation'}
            </button>
          )}
          {automation && can.write && (
            <button type="button" class="secondary" aria-busy={dispatch.busy ? 'true' : undefined} onClick={() => void dispatch.run()}>
              Run now
            </button>
          )}
          {automation && editable && (
            <ConfirmButton label="Delete automation" question={`Delete ${automation.name}?`} confirm="Delete" onConfirm={() => void remove.run()} />
          )}
        </div>
        <ErrorNotice error={save.error} context="Saving failed" />
        <ErrorNotice error={dispatch.error} context="Starting a run failed" />
        <ErrorNotice error={remove.error} context="Deleting failed" />
        {saved && <StatusNote>{saved}</StatusNote>}
      </ActionForm>
      {/* The tester asks the server to validate the draft, which needs the member role. */}
      {can.write && <FilterTester draft={inputOf(draft)} webhook={webhook} />}
    </>
  );
}

/** Who created the automation, and for a member looking at someone else's, why it cannot be changed here. */
function Owner({ automation, editable }: { automation: Automation; editable: boolean }) {
  const { userId, role } = useSession();
  const own = automation.created_by === userId;
  return (
    <p>
      Created by {automation.created_by}
      {own && ' (you)'}.{!editable && role === 'member' && ` Only ${automation.created_by} or an admin can change or delete it; your key is a member.`}
    </p>
  );
}
