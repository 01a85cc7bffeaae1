/**
 * Stops and answers given in a thread by a trusted person, done once their delivery is recorded:
 * a stop cancels the thread's live runs (the outcome comment says who stopped it); `/approve` and
 * `/reject` answer the action the thread's running agent holds for approval, as the console's
 * answer does. Before the delivery is written, each command's outcome is told what it will do.
 * @module
 */
import { threadActor } from '../audit/audit-log.js';
import type { ServiceContext } from '../kernel/context.js';
import { nowIso } from '../kernel/context.js';
import { cancelRun } from '../runs/run-lifecycle.js';
import type { DeliveryRecord } from '../schemas/delivery.js';
import type { RunRecord } from '../schemas/run.js';
import { readEventsFrom } from '../storage/conversation-log.js';
import type { ThreadControl } from './thread-gate.js';

/** The thread's live runs (PENDING or RUNNING), oldest first. */
async function liveRuns(context: ServiceContext, orgId: string, control: ThreadControl): Promise<RunRecord[]> {
  const live = await context.storage.runs.listLive(orgId, control.automation.id, control.runKey);
  return live.filter((run) => run.thread_key === control.threadKey);
}

/** Says on each command's outcome what it will do (read before the delivery is written). */
export async function describeThreadControls(context: ServiceContext, orgId: string, controls: readonly ThreadControl[]): Promise<void> {
  for (const control of controls) {
    const live = await liveRuns(context, orgId, control).catch(() => []);
    const who = `@${control.actor}`;
    if (control.command.kind === 'stop') {
      control.outcome.detail =
        live.length > 0 ? `stop from ${who}: cancels ${live.map((run) => run.id).join(', ')}` : `stop from ${who}: no run works in the thread`;
    } else {
      const running = live.find((run) => run.status === 'RUNNING');
      control.outcome.detail = running
        ? `${control.command.kind} from ${who}: answers the action held by ${running.id}, if one is held`
        : `${control.command.kind} from ${who}: no run works in the thread`;
    }
  }
}

/** Does what the delivery's commands ask. Never throws: a failure is logged, the delivery stands. */
export async function applyThreadControls(context: ServiceContext, delivery: DeliveryRecord, controls: readonly ThreadControl[]): Promise<void> {
  for (const control of controls) {
    try {
      if (control.command.kind === 'stop') await stopThread(context, delivery, control);
      else await answerHeldAction(context, delivery, control, control.command.kind === 'approve', control.command.reason);
    } catch (error) {
      context.logger.warn({ kind: 'delivery', deliveryId: delivery.id, orgId: delivery.org_id, err: String(error) }, 'thread command could not be done');
    }
  }
}

async function stopThread(context: ServiceContext, delivery: DeliveryRecord, control: ThreadControl): Promise<void> {
  for (const run of await liveRuns(context, delivery.org_id, control)) {
    const reason = `stopped by @${control.actor} from the thread (delivery ${delivery.id})`;
    if (await cancelRun(context, { orgId: run.org_id, id: run.id }, reason)) {
      await context.audit.record(run.org_id, threadActor(control.actor), {
        action: 'run.cancelled',
        target: { type: 'run', id: run.id },
        details: { thread: control.threadKey, delivery_id: delivery.id },
      });
      context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id, deliveryId: delivery.id, actor: control.actor }, 'run stopped from its thread');
    }
  }
}

/** Answers the action the thread's running agent holds, naming it as the console's answer does. */
async function answerHeldAction(context: ServiceContext, delivery: DeliveryRecord, control: ThreadControl, accept: boolean, reason: string): Promise<void> {
  const running = (await liveRuns(context, delivery.org_id, control)).find((run) => run.status === 'RUNNING' && run.conversation_id);
  const conversationId = running?.conversation_id;
  if (!conversationId) return;
  const conversation = await context.storage.conversations.get(conversationId);
  if (conversation?.execution_status !== 'waiting_for_confirmation') return;
  const held = (await readEventsFrom(context.storage, conversationId)).filter((event) => event.kind === 'ActionEvent').at(-1);
  if (!held) return;
  // A Slack button names the action it answers: a click on an older request answers nothing held now.
  const named = control.command.kind === 'stop' ? undefined : control.command.action;
  if (named !== undefined && named !== held.id) {
    context.logger.info(
      { kind: 'delivery', deliveryId: delivery.id, orgId: delivery.org_id, actor: control.actor, answers: named, held: held.id },
      'thread approval answers an action no longer held; ignored',
    );
    return;
  }
  const why = reason || (accept ? '' : `rejected by @${control.actor} in the thread`);
  await context.storage.conversations.patch(conversationId, {
    confirmation_response: { action_id: held.id, accept, reason: why },
    updated_at: nowIso(context),
  });
  await context.announce({ type: 'conversation.control', conversationId });
  await context.audit.record(delivery.org_id, threadActor(control.actor), {
    action: accept ? 'action.approved' : 'action.rejected',
    target: { type: 'run', id: (running as RunRecord).id },
    details: { thread: control.threadKey, action_id: held.id, conversation_id: conversationId },
  });
}
