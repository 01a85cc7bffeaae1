/**
 * The run an automation's conversation belongs to, and the thread it continues. A conversation as
 * the API returns it does not name its run, so the run is looked for: the conversation is titled
 * with its automation's name when the run opens it, and that automation's latest runs name their
 * conversation. A renamed conversation or automation, or a run older than the latest page, is
 * not found, and then nothing is shown.
 */
import type { AppConversation, Run } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { ErrorNotice, Fields, Link } from '../components.js';
import { useResource } from '../hooks.js';
import { segment } from '../router.js';
import { useClient } from '../session.js';
import { THREAD_RUNS_SEARCHED, ThreadName } from './run-thread.js';

export function ConversationRun({ conversation }: { conversation: AppConversation }) {
  const client = useClient();
  const { id, title, trigger } = conversation;
  const run = useResource(
    async (signal): Promise<Run | null> => {
      if (trigger !== 'automation' || !title) return null;
      const { automations } = await client.automations.list({ limit: 100 }, { signal });
      for (const automation of automations.filter((candidate) => candidate.name === title)) {
        const { runs } = await client.automations.runs(automation.id, { limit: THREAD_RUNS_SEARCHED, offset: 0 }, { signal });
        // Newest first: a thread's conversation is its latest run's.
        const found = runs.find((candidate) => candidate.conversation_id === id);
        if (found) return found;
      }
      return null;
    },
    [id, title, trigger],
  );
  const found = run.data;
  return (
    <>
      <ErrorNotice error={run.error} context="Finding the conversation's run failed" />
      {found && (
        <Fields
          rows={[
            ['Run', <Link to={`runs/${segment(found.id)}`}>{found.id}</Link>],
            ...(found.thread_key
              ? ([
                  [
                    'Thread',
                    <>
                      <ThreadName threadKey={found.thread_key} />
                      <small class="detail">
                        <Link to={`runs/${segment(found.id)}`}>the thread's runs</Link>
                      </small>
                    </>,
                  ],
                ] as [string, ComponentChildren][])
              : []),
          ]}
        />
      )}
    </>
  );
}
