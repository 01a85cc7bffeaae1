/**
 * Between matching and recording: what a code-host event's matches may do. For each matched
 * automation whose actor must be trusted ({@link needsTrust}), the actor is checked (bots, the
 * platform's own words, `allowed_actors`); a refused one starts nothing and its outcome says who
 * and why. A trusted stop or answer (`/approve`, `/reject`) acts on the thread instead of starting
 * a run; work starts a run in the thread (its key on the run, which keeps one run per thread).
 * Runs in ingest, before the delivery's transaction (the host may be asked, with a short limit).
 * @module
 */
import type { CompiledAutomation } from '../matching/compiled-automation.js';
import type { MatchResult } from '../matching/match-event.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { DeliveryOutcome } from '../schemas/delivery.js';
import { concurrencyKeyOf } from '../matching/concurrency-key.js';
import { type ActorTrust, needsTrust } from '../threads/actor-trust.js';
import { actorOf } from '../threads/inbound-hosts.js';
import type { ThreadCommand } from '../threads/thread-command.js';
import { threadKeyOf } from '../threads/thread-key.js';

/** A stop or an answer from a thread, done after the delivery is recorded. */
export interface ThreadControl {
  automation: AutomationRecord;
  command: Exclude<ThreadCommand, { kind: 'work' } | { kind: 'none' }>;
  threadKey: string;
  /** The concurrency key the thread's runs carry (the thread's, unless the automation names its own). */
  runKey: string;
  /** Who gave it (their login). */
  actor: string;
  /** The outcome that tells what it did, filled in when it is done. */
  outcome: DeliveryOutcome;
}

/** A match that starts a run, with its thread (`null`: none). */
export interface GatedMatch {
  automation: CompiledAutomation;
  threadKey: string | null;
}

export interface GateResult {
  runs: GatedMatch[];
  controls: ThreadControl[];
}

/**
 * Decides each match of `match` (its outcomes changed in place for refusals and commands).
 * `trust`: `null` trusts nobody who must be trusted (no way to ask a host).
 */
export async function gateMatches(trust: ActorTrust | null, source: string, eventKey: string, payload: unknown, match: MatchResult): Promise<GateResult> {
  const result: GateResult = { runs: [], controls: [] };
  const thread = threadKeyOf(source, eventKey, payload);
  for (const automation of match.matched) {
    const record = automation.record;
    const outcome = match.outcomes.find((one) => one.automation_id === record.id);
    const command = match.commands.get(record.id) ?? { kind: 'work' as const };
    const control = command.kind === 'work' || command.kind === 'none' ? null : command;
    if (control || needsTrust(record, eventKey)) {
      const actor = match.actor ?? actorOf(source, eventKey, payload);
      const decision = trust
        ? await trust.decide(record, payload, actor)
        : { trusted: false as const, actor: actor.login, why: 'no code host is configured to ask' };
      if (!decision.trusted) {
        if (outcome) Object.assign(outcome, { matched: false, reason: 'actor_refused', error: decision.why });
        continue;
      }
      if (control) {
        if (!thread || !outcome) continue;
        Object.assign(outcome, { reason: 'thread_command', detail: `${control.kind} from @${decision.actor}` });
        result.controls.push({
          automation: record,
          command: control,
          threadKey: thread,
          runKey: concurrencyKeyOf(automation, payload) ?? thread,
          actor: decision.actor,
          outcome,
        });
        continue;
      }
    }
    result.runs.push({ automation, threadKey: match.commands.has(record.id) ? thread : null });
  }
  return result;
}
