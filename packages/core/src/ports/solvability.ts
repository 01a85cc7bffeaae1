/**
 * How likely the agent is to solve an issue, estimated before it starts (the owner's
 * `enable_solvability_analysis`): shown in the run's "on it" comment so the person who asked
 * knows what to expect. `@agent-platform/agent`'s `createSolvabilityEstimator` asks the owner's
 * model; a host may bring its own (a classifier).
 * @module
 */
import type { AgentSettings } from './agent-runner.js';

export interface SolvabilityEstimate {
  /** From 0 (surely not) to 1 (surely). */
  score: number;
  /** One sentence: what makes it easy or hard. */
  summary: string;
}

export interface SolvabilityEstimator {
  /** Rejects when it cannot estimate (no model, the model refused, `signal` aborted). */
  estimate(input: { settings: AgentSettings; repository: string; title: string; body: string; signal: AbortSignal }): Promise<SolvabilityEstimate>;
}
