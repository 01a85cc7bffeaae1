/** One conversation, live: its fields, its events, a message, pause, and accept or reject a held action. */
import { isAgentEvent, type ConversationEvent } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ErrorNotice, Fields, Link, PageTitle, StatusNote, Time } from '../components.js';
import { ActionForm, Submit } from '../forms.js';
import { ActionRisk } from '../action-risk.js';
import { EventLog } from '../event-log.js';
import { LIVE_POLL_MS, useAction, useResource } from '../hooks.js';
import { useClient, usePermissions } from '../session.js';
import { conversationStatus, useStatusSound } from '../status-sound.js';
import { ConversationRun } from './conversation-run.js';

export function ConversationPage({ id }: { id: string }) {
  const client = useClient();
  const can = usePermissions();
  const conversation = useResource((signal) => client.conversations.get(id, { signal }), [id], { pollMs: LIVE_POLL_MS });
  const [pending, setPending] = useState<ConversationEvent | null>(null);
  const [message, setMessage] = useState('');
  const [runAgent, setRunAgent] = useState(true);
  const [note, setNote] = useState<string | null>(null);
  const send = useAction(async () => {
    await client.conversations.send(id, message, { run: runAgent });
    setMessage('');
    setNote('Message sent.');
    conversation.reload();
  });
  const respond = useAction(async (accept: boolean, reason: string) => {
    await client.conversations.respond(id, reason ? { accept, reason } : { accept });
    setNote(accept ? 'Action accepted.' : 'Action rejected.');
    conversation.reload();
  });
  const pause = useAction(async () => {
    await client.conversations.pause(id);
    setNote('Pause requested: the agent stops after its current step.');
    conversation.reload();
  });
  const record = conversation.data;
  useStatusSound('conversation', record && [conversationStatus(record)]);
  const status = record?.execution_status;
  return (
    <>
      <PageTitle>{record?.title ? `Conversation: ${record.title}` : `Conversation ${id}`}</PageTitle>
      <p>
        <Link to="conversations">All conversations</Link>
      </p>
      <ErrorNotice error={conversation.error} context="Loading the conversation failed" />
      {record && (
        <>
          <Fields
            rows={[
              ['Status', <Badge value={record.execution_status} />],
              ['Started by', record.trigger],
              [
                'Sandbox',
                record.sandbox_id
                  ? `${record.sandbox_id} (${record.sandbox_status === 'MISSING' ? 'gone: deleted when its run ended, or lost with its host' : (record.sandbox_status ?? 'unknown')})`
                  : null,
              ],
              ['Repository', record.selected_repository],
              ['Model', record.llm_model],
              ['Created', <Time value={record.created_at} />],
              ['Updated', <Time value={record.updated_at} />],
            ]}
          />
          <ConversationRun conversation={record} />
        </>
      )}
      {can.write && status === 'waiting_for_confirmation' && (
        <Confirmation action={pending} busy={respond.busy} onRespond={(accept, reason) => void respond.run(accept, reason)} />
      )}
      <ErrorNotice error={respond.error} context="Answering failed" />
      {can.write && status === 'running' && (
        <div class="actions">
          <button type="button" class="secondary" aria-busy={pause.busy ? 'true' : undefined} onClick={() => void pause.run()}>
            Pause agent
          </button>
        </div>
      )}
      <ErrorNotice error={pause.error} context="Pausing failed" />
      {note && <StatusNote>{note}</StatusNote>}
      <EventLog
        conversationId={id}
        onEvent={(event) => {
          // The action held for confirmation is the last one the agent proposed.
          if (isAgentEvent(event, 'ActionEvent')) setPending(event);
          else if (isAgentEvent(event, 'ObservationEvent') || isAgentEvent(event, 'UserRejectObservation')) setPending(null);
        }}
      />
      {can.write && (
        <section aria-labelledby="send-title">
          <h2 id="send-title">Send a message</h2>
          <ActionForm onSubmit={() => send.run()}>
            <label>
              Message
              <textarea name="message" rows={3} required value={message} onInput={(event) => setMessage((event.currentTarget as HTMLTextAreaElement).value)} />
            </label>
            <label>
              <input type="checkbox" checked={runAgent} onChange={(event) => setRunAgent((event.currentTarget as HTMLInputElement).checked)} />
              Run the agent if it is idle
            </label>
            <Submit action={send} failed="Sending failed">
              Send message
            </Submit>
          </ActionForm>
        </section>
      )}
    </>
  );
}

/** Confirmation mode: the agent holds its next action until the user accepts or rejects it. */
function Confirmation({ action, busy, onRespond }: { action: ConversationEvent | null; busy: boolean; onRespond: (accept: boolean, reason: string) => void }) {
  const [reason, setReason] = useState('');
  const summary = action && isAgentEvent(action, 'ActionEvent') ? (action.data.summary ?? action.message ?? action.data.tool_name) : null;
  return (
    <article aria-labelledby="confirm-title" class="confirmation">
      <h2 id="confirm-title">The agent is waiting for your confirmation</h2>
      <p>
        {summary ? (
          <>
            Its next action: <code>{summary}</code>
            <ActionRisk event={action} withReason />
          </>
        ) : (
          'It holds its next action until you answer.'
        )}
      </p>
      <label>
        Reason (optional)
        <input value={reason} onInput={(event) => setReason((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <div class="actions">
        <button type="button" aria-busy={busy ? 'true' : undefined} onClick={() => onRespond(true, reason.trim())}>
          Accept action
        </button>
        <button type="button" class="secondary" onClick={() => onRespond(false, reason.trim())}>
          Reject action
        </button>
      </div>
    </article>
  );
}
