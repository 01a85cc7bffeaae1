/**
 * The `llm` security analyzer (OpenHands' `LLMSecurityAnalyzer`): the model rates each of its
 * own actions as it calls the tool (`security_risk`, see `model-risk.ts`), and that rating is
 * the action's. An action the model did not rate is UNKNOWN, so in confirmation mode it waits.
 * @module
 */
import type { SecurityAnalyzer } from '@agent-platform/core';

export const llmSecurityAnalyzer: SecurityAnalyzer = {
  asksModel: true,
  rate: (action) =>
    action.readOnly
      ? { risk: 'LOW', reason: 'changes nothing' }
      : action.modelRisk
        ? { risk: action.modelRisk, reason: `the model rates it ${action.modelRisk}` }
        : { risk: 'UNKNOWN', reason: 'the model gave no rating' },
};
