/**
 * `@agent-platform/core/schemas`: the wire schemas, the types inferred from them, and the error
 * codes — nothing else. It imports no Node built-in, so browser code and the client SDK can
 * take types (and, if they want, runtime validation) from here without pulling in the engine.
 * @module
 */
export * from '../errors.js';
export * from './common.js';
export * from './principal.js';
export * from './mcp-config.js';
export * from './settings.js';
export * from './custom-secrets.js';
export * from './openhands-settings.js';
export * from './provider-tokens.js';
export * from './api-key.js';
export * from './webhook.js';
export * from './automation.js';
export * from './automation-validation.js';
export * from './run.js';
export * from './subscription.js';
export * from './delivery.js';
export * from './github-link.js';
export * from './sandbox-spec.js';
export * from './sandbox.js';
export * from './metrics.js';
export * from './agent-events.js';
export * from './app-conversation.js';
export * from './v1-pages.js';
