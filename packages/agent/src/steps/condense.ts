/**
 * The default condenser's turn before a model call (`enable_default_condenser`): when the history
 * has grown too big, its older half is summarised by the model and a `Condensation` recorded in
 * its place. A summary that fails is noted, and the run goes on with the whole history.
 * @module
 */
import { eventsToForget, shouldCondense, summarize } from '../history/condenser.js';
import { condensationEvent } from '../history/events.js';
import { visibleEvents } from '../history/history.js';
import { describeModelError } from '../model/provider-errors.js';
import { remember, type AgentRun } from '../run/agent-run.js';

/**
 * Condenses the history if it needs it: `condensed` when it called the model to, `stopped` when
 * the run's signal stopped it meanwhile, `done` otherwise.
 */
export async function condenseIfNeeded(run: AgentRun): Promise<'stopped' | 'done' | 'condensed'> {
  const { history, metrics } = run;
  if (!run.settings.enableDefaultCondenser || !shouldCondense(history, metrics.lastPromptTokens, metrics.contextWindow, run.condenser)) return 'done';
  const forgottenIds = eventsToForget(history);
  const forgotten = visibleEvents(history).filter((entry) => forgottenIds.includes(entry.id));
  let condensed: Awaited<ReturnType<typeof summarize>>;
  try {
    condensed = await run.telemetry.chat(
      { model: run.model, purpose: 'condense', signal: run.stop.signal },
      () => summarize(run.model.model, forgotten, { ...run.condenser, signal: run.stop.signal, maxRetries: run.maxRetries }),
      (summary) => metrics.add(summary.usage),
    );
  } catch (error) {
    if (run.stop.signal.aborted) return 'stopped';
    await run.sink.note({ type: 'condensation_failed', error: describeModelError(error, run.model.name, run.secrets) });
    return 'done';
  }
  await remember(run, condensationEvent(forgottenIds, condensed.summary, 1));
  await run.sink.metrics(metrics.snapshot());
  return 'condensed';
}
