/**
 * A thread automation's run in its thread: the thread's record (its conversation, branch and pull
 * request), the message a follow-up brings to the conversation, and what the run leaves on the
 * thread — the conversation it opened, the pull request the agent opened (also recorded under the
 * pull request's own thread, so review comments on it continue the same work).
 * @module
 */
import { SYSTEM_ACTOR } from '../audit/audit-log.js';
import type { NewConversationEvent } from '../agents/conversation-record.js';
import { userMessageEvent } from '../agents/conversation-record.js';
import type { RepositoryTarget } from '../agents/git-checkout.js';
import type { AgentThreadAction, OpenedPullRequest } from '../github/github-tools.js';
import type { ServiceContext } from '../kernel/context.js';
import type { RunRecord } from '../schemas/run.js';
import type { ThreadRecord } from '../schemas/thread.js';
import { inboundHostOfThread } from '../threads/inbound-hosts.js';
import { parseThreadKey, threadKey } from '../threads/thread-key.js';

/** The run's thread as stored, or `null` (no thread, or its first run). */
export async function threadOfRun(context: ServiceContext, run: RunRecord): Promise<ThreadRecord | null> {
  if (!run.thread_key) return null;
  return context.storage.threads.get(run.org_id, run.automation_id, run.thread_key);
}

/** Where a follow-up works: the thread's branch, in its repository (so the pull request it opened is updated). */
export function threadRepository(thread: ThreadRecord, event: RepositoryTarget | null): RepositoryTarget | null {
  const repository = thread.pull_request?.repository ?? event?.repository ?? parseThreadKey(thread.key)?.repository;
  if (!repository || !thread.branch) return event;
  // On the event's host: a GitLab thread's branch is cloned from GitLab.
  return { repository, provider: event?.provider ?? 'github', branch: thread.branch };
}

/** What the person asked in the thread, as the conversation's next user message. */
export function followUpMessage(run: RunRecord, thread: ThreadRecord, payloadJson: string | null): NewConversationEvent {
  let payload: unknown = null;
  try {
    payload = payloadJson === null ? null : JSON.parse(payloadJson);
  } catch {
    payload = null;
  }
  const key = run.thread_key ?? thread.key;
  const actor = inboundHostOfThread(key).actorOf(run.event_key ?? '', payload);
  const place = parseThreadKey(key);
  const where = place ? `${place.repository}#${place.number}` : key.includes(':') ? key.slice(key.indexOf(':') + 1) : 'the thread';
  const comment = (payload as { comment?: { path?: unknown; line?: unknown } } | null)?.comment;
  const onLine = typeof comment?.path === 'string' ? ` on ${comment.path}${typeof comment.line === 'number' ? ` line ${comment.line}` : ''}` : '';
  const lines = [
    `Follow-up from ${actor.login ? `@${actor.login}` : 'the thread'} in ${where}${onLine} (${run.event_key ?? 'event'}):`,
    '',
    actor.text?.trim() || '(no text)',
    '',
  ];
  if (thread.pull_request && thread.branch) {
    lines.push(
      `You continue this thread's work. The repository is checked out on branch ${thread.branch}, which pull request #${thread.pull_request.number} tracks: commit and push to ${thread.branch} to update it; do not open another pull request.`,
    );
  } else {
    lines.push("You continue this thread's work, with what was said and done before.");
  }
  const event = userMessageEvent(lines.join('\n'));
  return { ...event, data: { ...event.data, run_id: run.id } };
}

/** The run's conversation is the thread's from now on (its first run's, or a follow-up's). */
export async function keepThreadConversation(context: ServiceContext, run: RunRecord, conversationId: string): Promise<void> {
  if (!run.thread_key) return;
  const now = context.clock.now().toISOString();
  const stored = await threadOfRun(context, run);
  await context.storage.threads.put({
    org_id: run.org_id,
    automation_id: run.automation_id,
    key: run.thread_key,
    conversation_id: conversationId,
    branch: stored?.branch ?? null,
    pull_request: stored?.pull_request ?? null,
    last_run_id: run.id,
    created_at: stored?.created_at ?? now,
    updated_at: now,
  });
}

/**
 * The agent opened a pull request in the run's thread: the thread keeps it and its branch (a
 * follow-up pushes there), and the pull request's own thread names the same conversation.
 */
export async function keepPullRequest(context: ServiceContext, run: RunRecord, conversationId: string, opened: OpenedPullRequest): Promise<void> {
  const now = context.clock.now().toISOString();
  const pullRequest = { repository: opened.repository, number: opened.number, url: opened.url };
  const keys = [run.thread_key, threadKey(opened.repository, opened.number)].filter((key): key is string => Boolean(key));
  for (const key of new Set(keys)) {
    const stored = await context.storage.threads.get(run.org_id, run.automation_id, key);
    await context.storage.threads.put({
      org_id: run.org_id,
      automation_id: run.automation_id,
      key,
      conversation_id: conversationId,
      branch: opened.head,
      pull_request: pullRequest,
      last_run_id: key === run.thread_key ? run.id : (stored?.last_run_id ?? null),
      created_at: stored?.created_at ?? now,
      updated_at: now,
    });
  }
  await recordPullRequest(context, run, opened);
  const conversation = await context.storage.conversations.get(conversationId);
  if (conversation && !conversation.pr_number.includes(opened.number)) {
    await context.storage.conversations.patch(conversationId, {
      pr_number: [...conversation.pr_number, opened.number],
      selected_branch: opened.head,
      updated_at: now,
    });
  }
}

/** The audit log's entry for a pull request an agent opened (in a thread or not). */
export function recordPullRequest(context: ServiceContext, run: RunRecord, opened: OpenedPullRequest): Promise<void> {
  return context.audit.record(run.org_id, SYSTEM_ACTOR, {
    action: 'agent.pull_request_opened',
    target: { type: 'run', id: run.id },
    details: { repository: opened.repository, number: opened.number, url: opened.url, head: opened.head },
  });
}

/** The audit log's entry for a comment an agent posted or labels it added. */
export function recordThreadAction(context: ServiceContext, run: RunRecord, action: AgentThreadAction): Promise<void> {
  const { type, ...details } = action;
  return context.audit.record(run.org_id, SYSTEM_ACTOR, {
    action: type === 'comment' ? 'agent.comment_posted' : 'agent.labels_added',
    target: { type: 'run', id: run.id },
    details,
  });
}
