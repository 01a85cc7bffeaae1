/**
 * A subscription's messages, live, each with its status, attempt count, next attempt and, when
 * opened, its attempt log (status code, latency, error) in a row below it; and Replay.
 */
import { OUTBOUND_MESSAGE_STATUSES, type OutboundAttempt, type OutboundMessage, type OutboundMessageStatus } from '@agent-platform/client';
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { Badge, ErrorNotice, Muted, StatusNote, Time } from '../components.js';
import { Options } from '../forms.js';
import { LIVE_POLL_MS, useAction, useResource } from '../hooks.js';
import { useClient, usePermissions } from '../session.js';
import { pageCaption, ResourceTable, Table, type Column } from '../table.js';

const ATTEMPT_COLUMNS: Column<OutboundAttempt>[] = [
  { header: 'Attempt', cell: (attempt) => attempt.attempt },
  { header: 'At', cell: (attempt) => <Time value={attempt.at} /> },
  { header: 'Status code', cell: (attempt) => attempt.status_code ?? <Muted>no answer</Muted> },
  { header: 'Latency', cell: (attempt) => `${attempt.latency_ms} ms` },
  { header: 'Error', cell: (attempt) => attempt.error ?? <Muted>none</Muted> },
];

const logIdOf = (message: OutboundMessage) => `attempts-${message.id}`;

export function Messages({ subscriptionId, enabled }: { subscriptionId: string; enabled: boolean }) {
  const client = useClient();
  const can = usePermissions();
  const [status, setStatus] = useState<OutboundMessageStatus | ''>('');
  const [note, setNote] = useState<string | null>(null);
  /** The messages whose attempt log is open. */
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const messages = useResource(
    (signal) => client.subscriptions.listMessages(subscriptionId, { limit: 50, ...(status ? { status } : {}) }, { signal }),
    [subscriptionId, status],
    { pollMs: LIVE_POLL_MS },
  );
  const replay = useAction(async (messageId: string) => {
    await client.subscriptions.replayMessage(subscriptionId, messageId);
    messages.reload();
    setNote(`Message ${messageId} is being sent again.`);
  });
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const columns: Column<OutboundMessage>[] = [
    { header: 'Message', cell: (message) => <code class="url">{message.id}</code> },
    { header: 'Event', cell: (message) => message.event_type },
    {
      header: 'Status',
      cell: (message) => (
        <>
          <Badge value={message.status} />
          {message.detail && <small class="detail">{message.detail}</small>}
        </>
      ),
    },
    {
      header: 'Attempts',
      cell: (message) => (
        <>
          {message.attempt}
          {message.attempts.length > 0 && (
            <button
              type="button"
              class="secondary outline small"
              aria-expanded={open.has(message.id) ? 'true' : 'false'}
              aria-controls={open.has(message.id) ? logIdOf(message) : undefined}
              onClick={() => toggle(message.id)}
            >
              {open.has(message.id) ? 'Hide log' : 'Log'}
              <span class="visually-hidden"> of attempts of message {message.id}</span>
            </button>
          )}
        </>
      ),
    },
    { header: 'Next attempt', cell: (message) => <Time value={message.next_attempt_at} /> },
    { header: 'Created', cell: (message) => <Time value={message.created_at} /> },
  ];
  // Replaying a message needs the admin role, as every write to a subscription does.
  const replayColumn: Column<OutboundMessage> = {
    header: 'Actions',
    // A pending message is sent at its next attempt anyway: replay is for the others.
    cell: (message) =>
      message.status !== 'pending' && (
        <button
          type="button"
          class="secondary outline"
          disabled={!enabled}
          aria-busy={replay.busy ? 'true' : undefined}
          onClick={() => void replay.run(message.id)}
        >
          Replay<span class="visually-hidden"> message {message.id}</span>
        </button>
      ),
  };
  if (can.admin) columns.push(replayColumn);
  return (
    <section aria-labelledby="messages-title">
      <h2 id="messages-title">Messages</h2>
      <p>Every event sent to this subscriber, newest first, with each attempt. The list updates live.</p>
      {can.admin && !enabled && <p>The subscription is disabled: enable it to replay its messages.</p>}
      <search aria-label="Filter messages">
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          {/* Labelled with `for`: a label around a select would take the chosen option into its name. */}
          <div>
            <label for="message-status">Status</label>
            <select
              id="message-status"
              value={status}
              onChange={(event) => setStatus((event.currentTarget as HTMLSelectElement).value as OutboundMessageStatus | '')}
            >
              <option value="">every status</option>
              <Options values={OUTBOUND_MESSAGE_STATUSES} />
            </select>
          </div>
        </form>
      </search>
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={replay.error} context="Replaying failed" />
      <ResourceTable
        resource={messages}
        rowsOf={(data) => data.messages}
        rowKey={(message) => message.id}
        columns={columns}
        caption={(rows, data) => pageCaption(rows.length, data.total, 'messages, newest first (updated live)')}
        empty={`No messages${status ? ` ${status}` : ''} yet.`}
        errorContext="Loading the messages failed"
        renderRow={(message, cells) => (
          <Fragment key={message.id}>
            {cells}
            {open.has(message.id) && (
              <tr id={logIdOf(message)}>
                <td colSpan={columns.length}>
                  <Table
                    columns={ATTEMPT_COLUMNS}
                    rows={message.attempts}
                    rowKey={(attempt) => String(attempt.attempt)}
                    caption={`Attempt log of message ${message.id}`}
                    striped={false}
                    class="attempts"
                  />
                </td>
              </tr>
            )}
          </Fragment>
        )}
      />
    </section>
  );
}
