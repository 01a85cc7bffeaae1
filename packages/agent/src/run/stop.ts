/**
 * What stops a run early: the caller's signal (a cancel) or the run's time limit. One signal for
 * everything the run does (model calls, commands, MCP calls), its reason saying which.
 * @module
 */
import type { AgentOutcome, MetricsSnapshot } from '@agent-platform/core';

/** Why the loop stopped early, as the abort reason of its signal. */
type StopCause = 'cancelled' | 'timeout';

export interface RunStop {
  readonly signal: AbortSignal;
  /** The outcome of a run the signal stopped: CANCELLED or TIMED_OUT. */
  outcome(metrics: MetricsSnapshot): AgentOutcome;
  /** Clears the timer and lets go of the caller's signal. */
  dispose(): void;
}

export function startStop(callerSignal: AbortSignal | undefined, timeoutMs: number): RunStop {
  const stop = new AbortController();
  const onAbort = () => stop.abort('cancelled' satisfies StopCause);
  if (callerSignal?.aborted) onAbort();
  callerSignal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort('timeout' satisfies StopCause), timeoutMs);
  timer.unref?.();
  return {
    signal: stop.signal,
    outcome: (metrics) => ({
      status: stop.signal.reason === 'timeout' ? 'TIMED_OUT' : 'CANCELLED',
      reason: stop.signal.reason === 'timeout' ? `timed out after ${Math.round(timeoutMs / 1000)} s` : 'cancelled',
      metrics,
    }),
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    },
  };
}
