/**
 * `@agent-platform/core/schemas`: the wire schemas, the types inferred from them, and the error
 * codes — nothing else. It imports no Node built-in, so browser code and the client SDK can
 * take types (and, if they want, runtime validation) from here without pulling in the engine.
 * @module
 */
export * from './kernel/errors.js';
export * from './schemas/vocabulary.js';
export * from './schemas/common.js';
export * from './schemas/principal.js';
export * from './schemas/mcp-config.js';
export * from './schemas/settings.js';
export * from './schemas/custom-secrets.js';
export * from './schemas/openhands-settings.js';
export * from './schemas/provider-tokens.js';
export * from './schemas/api-key.js';
export * from './schemas/webhook.js';
export * from './schemas/automation.js';
export * from './schemas/automation-validation.js';
export * from './schemas/run.js';
export * from './schemas/thread.js';
export * from './schemas/audit.js';
export * from './schemas/sign-in.js';
export * from './schemas/budget.js';
export * from './schemas/overview.js';
export * from './schemas/subscription.js';
export * from './schemas/delivery.js';
export * from './schemas/github-link.js';
export * from './schemas/sandbox-spec.js';
export * from './schemas/sandbox.js';
export * from './schemas/metrics.js';
export * from './schemas/security-risk.js';
export * from './schemas/agent-events.js';
export * from './schemas/app-conversation.js';
export * from './schemas/v1-pages.js';
