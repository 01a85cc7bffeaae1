/**
 * The agent stage of an agent job: the runner's events written to the conversation as they
 * come, in order, and its one outcome. An agent that throws ends FAILED with its message; a
 * time-out says how long it had. Secret values never reach the conversation or the reason.
 * @module
 */
import type { AgentOutcome, AgentRunInput, AgentRunner } from '../ports/agent-runner.js';
import type { NewConversationEvent } from './conversation-record.js';
import type { ConversationWriter } from './conversation-writer.js';
import type { SpendMeter } from '../spend/spend-control.js';
import { secretValuesOf } from './secret-values.js';

/** `meter` writes what the agent's model calls cost to the spend ledger as its totals grow. */
export async function runAgent(
  agent: AgentRunner,
  input: AgentRunInput,
  writer: ConversationWriter,
  timeoutSeconds: number,
  meter: SpendMeter | null = null,
): Promise<AgentOutcome> {
  writer.hide(secretValuesOf(input.settings));
  try {
    let outcome: AgentOutcome = { status: 'FAILED', reason: 'the agent reported no outcome' };
    for await (const event of agent.run(input)) {
      if (event.type === 'record') await writer.append({ ...(event.id ? { id: event.id } : {}), ...event.event } as NewConversationEvent);
      else if (event.type === 'metrics') {
        await meter?.record(event.metrics);
        await writer.recordMetrics(event.metrics);
      } else outcome = event.outcome.status === 'TIMED_OUT' ? { ...event.outcome, reason: `timed out after ${timeoutSeconds} s` } : event.outcome;
    }
    if (outcome.metrics) {
      await meter?.record(outcome.metrics);
      await writer.recordMetrics(outcome.metrics);
    }
    return { ...outcome, reason: outcome.reason === null ? null : writer.scrub(outcome.reason), metrics: outcome.metrics ?? writer.metrics };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { status: 'FAILED', reason: writer.scrub(reason), metrics: writer.metrics };
  }
}
