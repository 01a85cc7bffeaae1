/**
 * Conformance: specs, start, inspect, pause and resume states, delete, close.
 * @module
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxSpecSchema } from '@agent-platform/core';
import type { ExecEvent } from '@agent-platform/core';
import { uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { PROMPT_END_MS, execError, execOk, expectPlatformError, expectRejectsWith, expectWellFormed, takeRest, within } from './helpers.js';

export function describeLifecycle(ctx: SuiteContext): void {
  describe('lifecycle', () => {
    it('has a non-empty name for logs', () => {
      expect(typeof ctx.runtime.name).toBe('string');
      expect(ctx.runtime.name.length).toBeGreaterThan(0);
    });

    it('listSpecs returns at least one valid spec, with unique ids', async () => {
      const specs = await ctx.runtime.listSpecs();
      expect(specs.length).toBeGreaterThan(0);
      for (const spec of specs) expect(sandboxSpecSchema.parse(spec)).toEqual(spec);
      expect(new Set(specs.map((spec) => spec.id)).size).toBe(specs.length);
    });

    it('start resolves once the sandbox is RUNNING, and inspect agrees', async () => {
      const sandboxId = uniqueId('sbx');
      const specId = await ctx.specIdFor(ctx.runtime);
      const started = await ctx.runtime.start({ sandboxId, specId });
      expect(started).toMatchObject({ id: sandboxId, specId, status: 'RUNNING' });
      expect(typeof started.workingDir).toBe('string');
      expect(started.workingDir.length).toBeGreaterThan(0);
      expect(Array.isArray(started.exposedUrls)).toBe(true);
      expect(await ctx.runtime.inspect(sandboxId)).toEqual(started);
    });

    it('start with an unknown spec throws NOT_FOUND and creates nothing', async () => {
      const sandboxId = uniqueId('sbx');
      await expectRejectsWith(ctx.runtime.start({ sandboxId, specId: uniqueId('no-such-spec') }), 'NOT_FOUND');
      expect((await ctx.runtime.inspect(sandboxId)).status).toBe('MISSING');
    });

    it('inspect of an unknown sandbox says MISSING', async () => {
      const sandboxId = uniqueId('sbx');
      const sandbox = await ctx.runtime.inspect(sandboxId);
      expect(sandbox.id).toBe(sandboxId);
      expect(sandbox.status).toBe('MISSING');
    });

    it('pause makes it PAUSED and resume RUNNING again', async () => {
      const { id } = await ctx.start();
      await ctx.runtime.pause(id);
      expect((await ctx.runtime.inspect(id)).status).toBe('PAUSED');
      await ctx.runtime.resume(id);
      expect((await ctx.runtime.inspect(id)).status).toBe('RUNNING');
      expect(await execOk(ctx.runtime, id, 'echo back')).toBe('back\n');
    });

    it('pause, resume and delete of an unknown sandbox throw NOT_FOUND', async () => {
      const sandboxId = uniqueId('sbx');
      await expectRejectsWith(ctx.runtime.pause(sandboxId), 'NOT_FOUND');
      await expectRejectsWith(ctx.runtime.resume(sandboxId), 'NOT_FOUND');
      await expectRejectsWith(ctx.runtime.delete(sandboxId), 'NOT_FOUND');
    });

    it('exec in an unknown sandbox throws NOT_FOUND', async () => {
      expectPlatformError(await execError(ctx.runtime, uniqueId('sbx'), { command: 'true' }), 'NOT_FOUND');
    });

    it('delete makes it MISSING; it is then unknown to every call', async () => {
      const sandbox = await ctx.start();
      await execOk(ctx.runtime, sandbox.id, 'echo data > file.txt');
      await ctx.runtime.delete(sandbox.id);
      expect((await ctx.runtime.inspect(sandbox.id)).status).toBe('MISSING');
      await expectRejectsWith(ctx.runtime.delete(sandbox.id), 'NOT_FOUND');
      await expectRejectsWith(ctx.runtime.pause(sandbox.id), 'NOT_FOUND');
      expectPlatformError(await execError(ctx.runtime, sandbox.id, { command: 'true' }), 'NOT_FOUND');
      if (ctx.workingDirOnHost) expect(existsSync(sandbox.workingDir)).toBe(false);
    });

    it('delete of a paused sandbox removes it', async () => {
      const { id } = await ctx.start();
      await ctx.runtime.pause(id);
      await ctx.runtime.delete(id);
      expect((await ctx.runtime.inspect(id)).status).toBe('MISSING');
    });

    it('delete ends a running command: its stream finishes with an exit', async () => {
      const { id } = await ctx.start();
      const events: ExecEvent[] = [];
      const iterator = ctx.runtime.exec(id, { command: 'echo started; sleep 30' })[Symbol.asyncIterator]();
      const first = await within(PROMPT_END_MS, 'first output', iterator.next());
      expect(first.value).toEqual({ type: 'stdout', data: 'started\n' });
      events.push(first.value as ExecEvent);
      await ctx.runtime.delete(id);
      await within(PROMPT_END_MS, 'the stream of a deleted sandbox', takeRest(iterator, events));
      expect(expectWellFormed(events).exitCode).toBeNull();
    });

    it('close stops and removes every sandbox it created', async () => {
      const runtime = await ctx.factory();
      let closed = false;
      try {
        const a = await ctx.start({}, runtime);
        const b = await ctx.start({}, runtime);
        await execOk(runtime, a.id, 'echo data > file.txt');
        await runtime.pause(b.id);
        const iterator = runtime.exec(a.id, { command: 'echo started; sleep 30' })[Symbol.asyncIterator]();
        const first = await within(PROMPT_END_MS, 'first output', iterator.next());
        const events = [first.value as ExecEvent];
        await within(PROMPT_END_MS, 'close', runtime.close());
        closed = true;
        await within(PROMPT_END_MS, 'the stream of a closed runtime', takeRest(iterator, events));
        expect(expectWellFormed(events).exitCode).toBeNull();
        if (ctx.workingDirOnHost) {
          expect(existsSync(a.workingDir)).toBe(false);
          expect(existsSync(b.workingDir)).toBe(false);
        }
        // A runtime that can look sandboxes up (a container runtime, by label) must not find them.
        const fresh = await ctx.factory();
        try {
          expect((await fresh.inspect(a.id)).status).toBe('MISSING');
          expect((await fresh.inspect(b.id)).status).toBe('MISSING');
        } finally {
          await fresh.close();
        }
      } finally {
        if (!closed) await runtime.close();
      }
    });
  });
}
