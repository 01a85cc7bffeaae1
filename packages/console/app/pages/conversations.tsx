/** Conversations: the list, and starting one. One conversation is on its own page (conversation.tsx). */
import type { AppConversation } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ErrorNotice, Link, Muted, PageTitle, SandboxStatusBadge, StatusNote, Time } from '../components.js';
import { ActionForm } from '../forms.js';
import { useAction, useResource } from '../hooks.js';
import { navigate, segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { conversationStatus, startedHere, useStatusSound } from '../status-sound.js';
import { ResourceTable, type Column } from '../table.js';

const COLUMNS: Column<AppConversation>[] = [
  { header: 'Title', cell: (conversation) => <Link to={`conversations/${segment(conversation.id)}`}>{conversation.title ?? conversation.id}</Link> },
  { header: 'Started by', cell: (conversation) => conversation.trigger },
  { header: 'Status', cell: (conversation) => <Badge value={conversation.execution_status} /> },
  {
    header: 'Sandbox',
    cell: (conversation) => (conversation.sandbox_status ? <SandboxStatusBadge value={conversation.sandbox_status} /> : <Muted>none</Muted>),
  },
  { header: 'Created', cell: (conversation) => <Time value={conversation.created_at} /> },
];

export function ConversationsPage() {
  const client = useClient();
  const can = usePermissions();
  const conversations = useResource((signal) => client.conversations.list({ limit: 50 }, { signal }), [], { pollMs: 5_000 });
  useStatusSound('conversation', conversations.data?.items.map(conversationStatus));
  const [task, setTask] = useState('');
  const [starting, setStarting] = useState<string | null>(null);
  const start = useAction(async () => {
    const started = await client.conversations.start({ initial_message: task });
    setStarting('The sandbox and the agent are starting…');
    const ready = await client.conversations.waitUntilReady(started.id, { timeoutMs: 120_000 });
    startedHere('conversation', ready.app_conversation_id);
    navigate(`conversations/${segment(ready.app_conversation_id)}`);
  });
  return (
    <>
      <PageTitle>Conversations</PageTitle>
      <ResourceTable
        resource={conversations}
        rowsOf={(data) => data.items}
        rowKey={(conversation) => conversation.id}
        columns={COLUMNS}
        caption="Conversations, newest first"
        empty="No conversations yet."
        errorContext="Loading the conversations failed"
      />
      {can.write && (
        <section aria-labelledby="start-title">
          <h2 id="start-title">Start a conversation</h2>
          <ActionForm onSubmit={() => start.run()}>
            <label>
              Task
              <textarea name="task" rows={3} required value={task} onInput={(event) => setTask((event.currentTarget as HTMLTextAreaElement).value)} />
            </label>
            <button type="submit" aria-busy={start.busy ? 'true' : undefined}>
              Start conversation
            </button>
            {start.busy && starting && <StatusNote>{starting}</StatusNote>}
            <ErrorNotice error={start.error} context="Starting the conversation failed" />
          </ActionForm>
        </section>
      )}
    </>
  );
}
