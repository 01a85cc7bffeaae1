/**
 * `@agent-platform/core`: the platform's models, validation, services and ports.
 * @module
 */
export * from './errors.js';
export * from './validation.js';
export * from './ports/index.js';
export * from './schemas/common.js';
export * from './schemas/principal.js';
export * from './schemas/mcp-config.js';
export * from './schemas/settings.js';
export * from './schemas/provider-tokens.js';
export * from './schemas/api-key.js';
export * from './schemas/webhook.js';
export * from './expressions/glob.js';
export * from './expressions/jmespath.js';
export * from './expressions/expression-schema.js';
