/**
 * Conformance: adapter identity and readiness.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './context.js';

export function describeLifecycle(ctx: SuiteContext): void {
  describe('lifecycle', () => {
    it('has a non-empty name for logs', () => {
      expect(typeof ctx.adapter.name).toBe('string');
      expect(ctx.adapter.name.length).toBeGreaterThan(0);
    });

    it('ping resolves while the backend is reachable', async () => {
      await expect(ctx.adapter.ping()).resolves.toBeUndefined();
    });
  });
}
