/**
 * One subscription: its fields, and the messages sent to it, live, each with its status, attempt
 * count, next attempt and attempt log (status code, latency, error), with Replay.
 */
import { OUTBOUND_MESSAGE_STATUSES, type OutboundMessage, type OutboundMessageStatus } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ErrorNotice, Fields, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { useClient } from '../session.js';
import { LIVE_POLL_MS } from './deliveries.js';
import { SubscriptionState } from './subscriptions.js';

export function SubscriptionPage({ id }: { id: string }) {
  const client = useClient();
  const subscription = useResource((signal) => client.subscriptions.get(id, { signal }), [id], { pollMs: LIVE_POLL_MS });
  const record = subscription.data;
  return (
    <>
      <PageTitle>Subscription {record ? record.url : id}</PageTitle>
      <p>
        <Link to="subscriptions">All subscriptions</Link>
      </p>
      <ErrorNotice error={subscription.error} context="Loading the subscription failed" />
      {record && (
        <Fields
          rows={[
            ['URL', <code class="url">{record.url}</code>],
            ['Event types', record.event_types.join(', ')],
            ['Description', record.description],
            ['State', <SubscriptionState subscription={record} />],
            ['Last success', <Time value={record.last_success_at} />],
            ['Created', <Time value={record.created_at} />],
          ]}
        />
      )}
      <Messages subscriptionId={id} enabled={record?.enabled ?? true} />
    </>
  );
}

function Messages({ subscriptionId, enabled }: { subscriptionId: string; enabled: boolean }) {
  const client = useClient();
  const [status, setStatus] = useState<OutboundMessageStatus | ''>('');
  const [note, setNote] = useState<string | null>(null);
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
  return (
    <section aria-labelledby="messages-title">
      <h2 id="messages-title">Messages</h2>
      <p>Every event sent to this subscriber, newest first, with each attempt. The list updates live.</p>
      {!enabled && <p>The subscription is disabled: enable it to replay its messages.</p>}
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
              {OUTBOUND_MESSAGE_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </div>
        </form>
      </search>
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={messages.error} context="Loading the messages failed" />
      <ErrorNotice error={replay.error} context="Replaying failed" />
      {messages.data &&
        (messages.data.messages.length === 0 ? (
          <p>No messages{status ? ` ${status}` : ''} yet.</p>
        ) : (
          <div class="overflow-auto">
            <table class="striped">
              <caption>
                {messages.data.messages.length} of {messages.data.total} messages, newest first (updated live)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Message</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {messages.data.messages.map((message) => (
                  <MessageRows key={message.id} message={message} canReplay={enabled} replaying={replay.busy} onReplay={() => void replay.run(message.id)} />
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}

/**
 * One message's row, and under it, when opened, its attempt log across the table's width: when,
 * the status code (or none), the latency and the error.
 */
function MessageRows({ message, canReplay, replaying, onReplay }: { message: OutboundMessage; canReplay: boolean; replaying: boolean; onReplay: () => void }) {
  const [open, setOpen] = useState(false);
  const logId = `attempts-${message.id}`;
  return (
    <>
      <tr>
        <td>
          <code class="url">{message.id}</code>
        </td>
        <td>{message.event_type}</td>
        <td>
          <Badge value={message.status} />
          {message.detail && <small class="detail">{message.detail}</small>}
        </td>
        <td>
          {message.attempt}
          {message.attempts.length > 0 && (
            <button
              type="button"
              class="secondary outline small"
              aria-expanded={open ? 'true' : 'false'}
              aria-controls={open ? logId : undefined}
              onClick={() => setOpen(!open)}
            >
              {open ? 'Hide log' : 'Log'}
              <span class="visually-hidden"> of attempts of message {message.id}</span>
            </button>
          )}
        </td>
        <td>
          <Time value={message.next_attempt_at} />
        </td>
        <td>
          <Time value={message.created_at} />
        </td>
        <td>
          {/* A pending message is sent at its next attempt anyway: replay is for the others. */}
          {message.status !== 'pending' && (
            <button type="button" class="secondary outline" disabled={!canReplay} aria-busy={replaying ? 'true' : undefined} onClick={onReplay}>
              Replay<span class="visually-hidden"> message {message.id}</span>
            </button>
          )}
        </td>
      </tr>
      {open && (
        <tr id={logId}>
          <td colSpan={COLUMNS}>
            <table class="attempts">
              <caption>Attempt log of message {message.id}</caption>
              <thead>
                <tr>
                  <th scope="col">Attempt</th>
                  <th scope="col">At</th>
                  <th scope="col">Status code</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {message.attempts.map((attempt) => (
                  <tr key={attempt.attempt}>
                    <td>{attempt.attempt}</td>
                    <td>
                      <Time value={attempt.at} />
                    </td>
                    <td>{attempt.status_code ?? <Muted>no answer</Muted>}</td>
                    <td>{attempt.latency_ms} ms</td>
                    <td>{attempt.error ?? <Muted>none</Muted>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </td>
        </tr>
      )}
    </>
  );
}

/** The messages table's columns, which an opened attempt log spans. */
const COLUMNS = 7;
