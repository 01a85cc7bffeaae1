/**
 * Conformance: sandboxes do not see each other's files or environment.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './context.js';
import { execOk, printVars } from './helpers.js';

export function describeIsolation(ctx: SuiteContext): void {
  describe('isolation', () => {
    it("a sandbox does not see another's files in its working directory", async () => {
      const a = await ctx.start();
      const b = await ctx.start();
      await execOk(ctx.runtime, a.id, {
        command: 'echo a > by-command.txt',
        files: [{ path: 'by-api.txt', content: 'a' }],
      });
      expect(await execOk(ctx.runtime, a.id, 'ls')).toBe('by-api.txt\nby-command.txt\n');
      expect(await execOk(ctx.runtime, b.id, 'ls')).toBe('');
      expect(await execOk(ctx.runtime, b.id, 'test -e by-command.txt && echo seen || echo absent')).toBe('absent\n');
      await execOk(ctx.runtime, b.id, { command: 'true', files: [{ path: 'by-api.txt', content: 'b' }] });
      expect(await execOk(ctx.runtime, a.id, 'cat by-api.txt')).toBe('a');
      expect(await execOk(ctx.runtime, b.id, 'cat by-api.txt')).toBe('b');
    });

    it("a sandbox does not see another's start env", async () => {
      const a = await ctx.start({ env: { ONLY_IN_A: 'a' } });
      const b = await ctx.start();
      expect(await execOk(ctx.runtime, a.id, printVars('ONLY_IN_A'))).toBe('a|');
      expect(await execOk(ctx.runtime, b.id, printVars('ONLY_IN_A'))).toBe('<unset>|');
    });

    it('deleting one sandbox leaves the other running with its files', async () => {
      const a = await ctx.start();
      const b = await ctx.start();
      await execOk(ctx.runtime, b.id, 'echo b > keep.txt');
      await ctx.runtime.delete(a.id);
      expect((await ctx.runtime.inspect(b.id)).status).toBe('RUNNING');
      expect(await execOk(ctx.runtime, b.id, 'cat keep.txt')).toBe('b\n');
    });
  });
}
