/**
 * What one attempt of a run does, as an agent job plan: the automation's sandbox (bound to this
 * process: a dead worker's attempt dies with it), its repository, the conversation and the agent's
 * task. The first attempt opens the run's conversation; a later one, after an attempt that was
 * interrupted (its worker died or shut down), takes that conversation up again with its stored
 * events, so the agent continues where the earlier attempt stopped rather than starting over.
 * @module
 */
import type { AgentJobPlan } from '../agents/agent-job.js';
import { runRepository } from '../agents/repository-target.js';
import type { AgentHostTools, AgentSettings } from '../ports/agent-runner.js';
import type { AnswerHost, AnswerThread, HostToolsInput } from '../ports/answer-host.js';
import { readEventsFrom } from '../storage/conversation-log.js';
import type { ServiceContext } from '../kernel/context.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord } from '../schemas/run.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import { removeStoredSandbox } from '../sandboxes/stored-sandbox.js';
import type { ThreadRecord } from '../schemas/thread.js';
import { followUpMessage, keepPullRequest, recordPullRequest, recordThreadAction, threadOfRun, threadRepository } from './run-thread.js';

/**
 * One live attempt per run: before this attempt starts, the earlier attempt's sandbox (the run
 * still names it) is removed, wherever this runtime can reach it (a container on a shared Docker
 * engine), so nothing of that attempt runs on beside this one. Its own worker has stopped it
 * already in every case this process can tell of — a run's sandbox dies with its worker
 * (`boundToProcess`), and a worker that cannot renew a lease stops the run before the lease
 * lapses — so this is the second line. Best effort: a sandbox this runtime does not know is
 * left to those.
 */
export async function fenceEarlierAttempt(context: ServiceContext, runtime: SandboxRuntime, run: RunRecord): Promise<void> {
  if (!run.sandbox_id) return;
  const stored = await context.storage.sandboxes.get(run.sandbox_id).catch(() => null);
  if (stored && stored.status !== 'MISSING' && stored.runtime === runtime.name) await removeStoredSandbox(context, runtime, run.sandbox_id);
}

/**
 * The agent's tools on a host, through the answer-back port: the host of the run's event, in the
 * thread it was written in; for a run whose event was written in no host's thread (a manual
 * dispatch, a push, a custom source's event, a host that gives no tools), the first host that
 * gives tools for the automation's repositories. Each with the owner's credentials, told of what
 * the agent does (the audit log, the thread's pull request).
 */
function hostToolsOf(
  context: ServiceContext,
  run: RunRecord,
  automation: AutomationRecord,
  thread: ThreadRecord | null,
  source: string | null,
  payloadJson: string | null,
): (settings: AgentSettings, conversationId: string) => AgentHostTools | null {
  const own = source === null ? undefined : context.answerHosts.find((candidate) => candidate.handles(source));
  const eventThread = own?.agentTools ? threadOfEvent(own, run.event_key, payloadJson) : null;
  const pullRequest = thread?.pull_request ? { ...thread.pull_request, branch: thread.branch } : null;
  const input = (where: AnswerThread | null, settings: AgentSettings, conversationId: string): HostToolsInput => ({
    thread: where,
    repositories: [where?.repository, automation.selected_repository].filter(
      (name, index, all): name is string => typeof name === 'string' && name !== '' && all.indexOf(name) === index,
    ),
    automation,
    owner: { userId: automation.created_by, settings },
    pullRequest,
    onPullRequest: (opened) => (run.thread_key ? keepPullRequest(context, run, conversationId, opened) : recordPullRequest(context, run, opened)),
    onThreadAction: (action) => recordThreadAction(context, run, action),
  });
  if (own?.agentTools && eventThread) {
    const agentTools = own.agentTools.bind(own);
    return (settings, conversationId) => agentTools(input(eventThread, settings, conversationId));
  }
  // The event's own host first, then the others in the order the platform has them (the built-in one first).
  const hosts = [...(own ? [own] : []), ...context.answerHosts.filter((host) => host !== own)];
  return (settings, conversationId) => {
    for (const host of hosts) {
      const tools = host.agentTools?.(input(null, settings, conversationId)) ?? null;
      if (tools) return tools;
    }
    return null;
  };
}

/** The thread `host` reads in the run's event; `null` when it has none (or no payload to read). */
function threadOfEvent(host: AnswerHost, eventKey: string | null, payloadJson: string | null): AnswerThread | null {
  if (payloadJson === null) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(payloadJson);
  } catch {
    return null;
  }
  const found = host.threadOf(eventKey, payload);
  return 'thread' in found ? found.thread : null;
}

/** The run's event: its payload, and the source of the delivery (`null` for a manual dispatch). */
async function triggerOf(context: ServiceContext, run: RunRecord): Promise<{ payloadJson: string | null; source: string | null }> {
  if (!run.delivery_id) return { payloadJson: run.dispatch_payload_json, source: null };
  const delivery = await context.storage.deliveries.get(run.org_id, run.delivery_id);
  return { payloadJson: delivery?.payload_json ?? null, source: delivery?.source ?? null };
}

/** The plan of `run`'s attempt now claimed (its `attempt` already counted), without the signal. */
export async function planRunAttempt(
  context: ServiceContext,
  run: RunRecord,
  automation: AutomationRecord,
  timeoutSeconds: number,
): Promise<Omit<AgentJobPlan, 'signal'>> {
  const { payloadJson, source } = await triggerOf(context, run);
  // A thread's later run continues its conversation, on its branch.
  const thread = await threadOfRun(context, run);
  const eventRepository = runRepository(automation.selected_repository, source, payloadJson);
  const repository = thread ? threadRepository(thread, eventRepository) : eventRepository;
  const agent = {
    hostTools: hostToolsOf(context, run, automation, thread, source, payloadJson),
    runId: run.id,
    automationId: automation.id,
    instructions: automation.instructions,
    eventPayloadJson: payloadJson,
    llmModel: automation.llm_model,
    timeoutSeconds,
  };
  const base = {
    owner: { userId: automation.created_by, orgId: run.org_id },
    sandbox: { specId: automation.sandbox_spec_id, boundToProcess: true },
    repository,
    removeSandbox: true,
    attempt: run.attempt,
  };
  // An earlier attempt opened the conversation: this one takes it up with what it holds.
  const earlier = run.conversation_id ? await context.storage.conversations.get(run.conversation_id) : null;
  if (earlier) {
    const history = await readEventsFrom(context.storage, earlier.id);
    return { ...base, conversation: { resume: earlier }, agent: { ...agent, history, resumed: { attempt: run.attempt } } };
  }
  const continued = thread?.conversation_id ? await context.storage.conversations.get(thread.conversation_id) : null;
  if (continued && thread) {
    const history = await readEventsFrom(context.storage, continued.id);
    const followUp = { message: followUpMessage(run, thread, payloadJson), runId: run.id };
    return { ...base, conversation: { resume: continued, followUp }, agent: { ...agent, history } };
  }
  return {
    ...base,
    conversation: {
      create: {
        trigger: 'automation',
        runId: run.id,
        title: automation.name,
        selectedRepository: repository?.repository ?? null,
        selectedBranch: repository?.branch ?? null,
        llmModel: automation.llm_model,
        running: true,
      },
      firstMessage: payloadJson === null ? automation.instructions : `${automation.instructions}\n\nEvent payload:\n${payloadJson}`,
    },
    agent,
  };
}
