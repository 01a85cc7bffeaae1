/**
 * Tests the draft as it stands in the form (saved or not) against a pasted payload or the source's
 * recent deliveries, with `POST /api/automation/v1/validate`: the server checks the draft as
 * create would, and evaluates its trigger exactly as ingest does. Nothing is saved or run.
 */
import type { AutomationCreateInput, AutomationValidationResult, WebhookView } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ErrorNotice, Link, Muted, Time } from '../components.js';
import { ActionForm } from '../forms.js';
import { useAction } from '../hooks.js';
import { describeOutcome } from '../outcomes.js';
import { segment } from '../router.js';
import { useClient } from '../session.js';
import { Table, type Column } from '../table.js';

/** Deliveries the tester evaluates the draft against. */
const RECENT = 10;

const RECENT_COLUMNS: Column<AutomationValidationResult>[] = [
  {
    header: 'Received',
    cell: (row) => (
      <Link to={`deliveries/${segment(row.delivery_id ?? '')}`}>
        <Time value={row.received_at} />
      </Link>
    ),
  },
  { header: 'Event', cell: (row) => (row.event_key ? <code>{row.event_key}</code> : <Muted>none</Muted>) },
  { header: 'Result', cell: (row) => (row.matched ? <Badge value="matched" /> : describeOutcome(row.reason, row.detail)) },
];

export function FilterTester({ draft, webhook }: { draft: AutomationCreateInput; webhook: WebhookView | null }) {
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
      <ActionForm aria-labelledby="tester-payload-title" onSubmit={() => testPayload.run()}>
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
      </ActionForm>
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
            <Table columns={RECENT_COLUMNS} rows={recent} rowKey={(row) => row.delivery_id ?? ''} caption={`Recent deliveries of ${source}`} striped={false} />
          </>
        ))}
    </section>
  );
}

/** A sample's verdict in words. */
const verdictText = (result: AutomationValidationResult): string =>
  result.event_key ? `Event ${result.event_key}: ${describeOutcome(result.reason, result.detail)}.` : `${describeOutcome(result.reason, result.detail)}.`;
