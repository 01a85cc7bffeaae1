/**
 * `@agent-platform/testing/webhook-subscriber`: a loopback webhook subscriber that verifies each
 * delivery with the `standardwebhooks` reference implementation, without vitest (tests may import
 * it from the main entry too).
 * @module
 */
export * from './webhook-subscriber/index.js';
