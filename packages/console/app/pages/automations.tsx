/** Automations: the list, the create/edit form, and the filter tester. */
import type { Automation, AutomationCreateInput, AutomationValidationResult, WebhookView } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ConfirmButton, ErrorNotice, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { describeOutcome } from '../outcomes.js';
import { navigate, segment } from '../router.js';
import { useClient } from '../session.js';
import { FlowControlFields, flowDraftOf, flowInputOf, type FlowDraft } from './flow-control.js';

const GITHUB = 'github';

export function AutomationsPage() {
  const client = useClient();
  const automations = useResource((signal) => client.automations.list({ limit: 100 }, { signal }), []);
  return (
    <>
      <PageTitle>Automations</PageTitle>
      <p>An automation starts a run for each event of its source whose key matches one of its patterns and whose payload passes its filter.</p>
      <p>
        <Link to="automations/new" class="button-link">
          New automation
        </Link>
      </p>
      <ErrorNotice error={automations.error} context="Loading the automations failed" />
      {automations.data &&
        (automations.data.automations.length === 0 ? (
          <p>No automations yet.</p>
        ) : (
          <div class="overflow-auto">
            <table class="striped">
              <caption>
                {automations.data.automations.length} of {automations.data.total} automations
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Source</th>
                  <th scope="col">Events</th>
                  <th scope="col">Filter</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Last triggered</th>
                  <th scope="col">Runs</th>
                </tr>
              </thead>
              <tbody>
                {automations.data.automations.map((automation) => (
                  <tr key={automation.id}>
                    <td>
                      <Link to={`automations/${segment(automation.id)}`}>{automation.name}</Link>
                    </td>
                    <td>{automation.trigger.source}</td>
                    <td>
                      <code>{patternsOf(automation.trigger.on).join(', ')}</code>
                    </td>
                    <td>{automation.trigger.filter ? <code>{automation.trigger.filter}</code> : <Muted>none</Muted>}</td>
                    <td>{automation.enabled ? 'yes' : 'no'}</td>
                    <td>
                      <Time value={automation.last_triggered_at} />
                    </td>
                    <td>
                      <Link to={`runs?automation=${encodeURIComponent(automation.id)}`}>Runs of {automation.name}</Link>
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

const patternsOf = (on: string | string[]) => (typeof on === 'string' ? [on] : on);

interface Draft extends FlowDraft {
  name: string;
  source: string;
  on: string;
  filter: string;
  instructions: string;
  enabled: boolean;
  timeout: string;
  llmModel: string;
  repository: string;
  sandboxSpec: string;
}

const draftOf = (automation: Automation | null): Draft => ({
  name: automation?.name ?? '',
  source: automation?.trigger.source ?? '',
  on: automation ? patternsOf(automation.trigger.on).join(', ') : '',
  filter: automation?.trigger.filter ?? '',
  instructions: automation?.instructions ?? '',
  enabled: automation?.enabled ?? true,
  timeout: automation?.timeout_seconds?.toString() ?? '',
  llmModel: automation?.llm_model ?? '',
  repository: automation?.selected_repository ?? '',
  sandboxSpec: automation?.sandbox_spec_id ?? '',
  ...flowDraftOf(automation),
});

/** The form's draft as the API takes it (create, update, validate). */
const inputOf = (draft: Draft) =>
  ({
    name: draft.name.trim(),
    enabled: draft.enabled,
    trigger: { type: 'event' as const, source: draft.source.trim(), on: parsePatterns(draft.on), filter: draft.filter.trim() || null },
    instructions: draft.instructions,
    timeout_seconds: draft.timeout.trim() ? Number(draft.timeout) : null,
    llm_model: draft.llmModel.trim() || null,
    selected_repository: draft.repository.trim() || null,
    sandbox_spec_id: draft.sandboxSpec.trim() || null,
    ...flowInputOf(draft),
  }) satisfies AutomationCreateInput;

/** The patterns of an `on` field as typed: separated by commas or new lines. */
const parsePatterns = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((pattern) => pattern.trim())
    .filter(Boolean);

export function AutomationEditPage({ id }: { id: string | null }) {
  const client = useClient();
  const automation = useResource(async (signal) => (id ? client.automations.get(id, { signal }) : null), [id]);
  const webhooks = useResource((signal) => client.webhooks.list({ limit: 100 }, { signal }), []);
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
  const [draft, setDraft] = useState<Draft>(() => draftOf(automation));
  const [saved, setSaved] = useState<string | null>(null);
  const set = (field: keyof Draft) => (event: Event) => {
    const target = event.currentTarget as HTMLInputElement;
    setDraft((current) => ({ ...current, [field]: target.type === 'checkbox' ? target.checked : target.value }));
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
    navigate(`runs/${segment(run.id)}`);
  });
  const sources = [GITHUB, ...webhooks.map((webhook) => webhook.source)];
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
      <form
        aria-label={automation ? 'Edit automation' : 'New automation'}
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={500} value={draft.name} onInput={set('name')} />
        </label>
        <div class="grid">
          <div>
            <label>
              Source
              <input name="source" required list="automation-sources" value={draft.source} onInput={set('source')} aria-describedby="source-help" />
            </label>
            <small id="source-help">github, or the source of a registered webhook.</small>
            <datalist id="automation-sources">
              {sources.map((source) => (
                <option key={source} value={source} />
              ))}
            </datalist>
          </div>
          <div>
            <label>
              Event patterns
              <input name="on" required value={draft.on} onInput={set('on')} aria-describedby="on-help" />
            </label>
            <small id="on-help">
              Event keys, separated by commas; <code>*</code>, <code>?</code> and <code>[...]</code> are wildcards (<code>pull_request.*</code>).
            </small>
          </div>
        </div>
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
        <div class="actions">
          <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
            {automation ? 'Save changes' : 'Create automation'}
          </button>
          {automation && (
            <>
              <button type="button" class="secondary" aria-busy={dispatch.busy ? 'true' : undefined} onClick={() => void dispatch.run()}>
                Run now
              </button>
              <ConfirmButton label="Delete automation" question={`Delete ${automation.name}?`} confirm="Delete" onConfirm={() => void remove.run()} />
            </>
          )}
        </div>
        <ErrorNotice error={save.error} context="Saving failed" />
        <ErrorNotice error={dispatch.error} context="Starting a run failed" />
        <ErrorNotice error={remove.error} context="Deleting failed" />
        {saved && <StatusNote>{saved}</StatusNote>}
      </form>
      <FilterTester draft={inputOf(draft)} webhook={webhook} />
    </>
  );
}

/**
 * Tests the draft as it stands in the form (saved or not) against a pasted payload or the source's
 * recent deliveries, with `POST /api/automation/v1/validate`: the server checks the draft as
 * create would, and evaluates its trigger exactly as ingest does. Nothing is saved or run.
 */
function FilterTester({ draft, webhook }: { draft: AutomationCreateInput; webhook: WebhookView | null }) {
  const client = useClient();
  const [payloadText, setPayloadText] = useState('');
  const [eventKey, setEventKey] = useState('');
  const [sample, setSample] = useState<{ result: AutomationValidationResult | null; problem: string | null } | null>(null);
  const [recent, setRecent] = useState<AutomationValidationResult[] | null>(null);
  const source = draft.trigger.source;
  const keyExpression = webhook && !webhook.event_key_header ? webhook.event_key_expr : null;

  const testPayload = useAction(async () => {
    setSample(null);
    let payload: unknown;
    try {
      payload = JSON.parse(payloadText);
    } catch (error) {
      setSample({ result: null, problem: `The payload is not JSON: ${(error as Error).message}` });
      return;
    }
    const key = eventKey.trim();
    const validation = await client.automations.validate({ automation: draft, sample_payload: payload, ...(key ? { sample_event_key: key } : {}) });
    setSample({ result: validation.results[0] ?? null, problem: null });
  });

  const testRecent = useAction(async () => {
    setRecent(null);
    setRecent((await client.automations.validate({ automation: draft, test_recent: RECENT })).results);
  });

  return (
    <section aria-labelledby="tester-title" class="tester">
      <h2 id="tester-title">Test the trigger</h2>
      <p>
        Tries the automation above as it stands in the form, saved or not: the platform checks it as it would on save and matches it the way it matches
        deliveries. Nothing is saved or run.
      </p>
      <form
        aria-labelledby="tester-payload-title"
        onSubmit={(event) => {
          event.preventDefault();
          void testPayload.run();
        }}
      >
        <h3 id="tester-payload-title">Against a payload</h3>
        <label>
          Event key
          <input
            name="event_key"
            value={eventKey}
            onInput={(event) => setEventKey((event.currentTarget as HTMLInputElement).value)}
            placeholder={keyExpression ? `from the payload: ${keyExpression}` : 'e.g. pull_request.opened'}
            aria-describedby="tester-key-help"
          />
        </label>
        <small id="tester-key-help">
          {keyExpression
            ? `Leave empty to take it from the payload with the source's event key expression, ${keyExpression}.`
            : 'The key the event would arrive with.'}
        </small>
        <label>
          Payload (JSON)
          <textarea
            name="payload"
            rows={6}
            value={payloadText}
            onInput={(event) => setPayloadText((event.currentTarget as HTMLTextAreaElement).value)}
            spellcheck={false}
          />
        </label>
        <button type="submit" class="secondary" aria-busy={testPayload.busy ? 'true' : undefined}>
          Test payload
        </button>
        <ErrorNotice error={testPayload.error} context="The test failed" />
        {sample && (
          <p role="status" class={`notice ${sample.result?.matched ? 'ok' : 'error'}`}>
            {sample.problem ?? (sample.result ? verdictText(sample.result) : 'No result.')}
          </p>
        )}
      </form>
      <h3>Against recent deliveries</h3>
      <p>
        The last {RECENT} deliveries of {source ? <strong>{source}</strong> : 'the source'}, as they were received.
      </p>
      <button type="button" class="secondary" disabled={!source} aria-busy={testRecent.busy ? 'true' : undefined} onClick={() => void testRecent.run()}>
        Test recent deliveries
      </button>
      <ErrorNotice error={testRecent.error} context="The test failed" />
      {recent &&
        (recent.length === 0 ? (
          <p role="status">No deliveries from {source} yet.</p>
        ) : (
          <>
            <p role="status">
              {recent.filter((row) => row.matched).length} of {recent.length} recent deliveries match.
            </p>
            <table>
              <caption>Recent deliveries of {source}</caption>
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Event</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {recent.map((row) => (
                  <tr key={row.delivery_id}>
                    <td>
                      <Link to={`deliveries/${segment(row.delivery_id ?? '')}`}>
                        <Time value={row.received_at} />
                      </Link>
                    </td>
                    <td>{row.event_key ? <code>{row.event_key}</code> : <Muted>none</Muted>}</td>
                    <td>{row.matched ? <Badge value="matched" /> : describeOutcome(row.reason, row.detail)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ))}
    </section>
  );
}

/** Deliveries the tester evaluates the draft against. */
const RECENT = 10;

/** A sample's verdict in words. */
const verdictText = (result: AutomationValidationResult): string =>
  result.event_key ? `Event ${result.event_key}: ${describeOutcome(result.reason, result.detail)}.` : `${describeOutcome(result.reason, result.detail)}.`;
