/**
 * Conformance: a paused sandbox is frozen — its commands make no progress and no new command
 * starts — and resume lets them go on.
 * @module
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './context.js';
import { PROMPT_END_MS, execError, execOk, expectPlatformError, waitFor, within } from './helpers.js';

/**
 * Appends and prints an increasing counter about 20 times a second, forever. The log line comes
 * first, so the log holds at least every tick seen on stdout even when the command is killed.
 */
const TICKER = 'i=0; while :; do i=$((i+1)); echo "$i" >> ticks.log; echo "$i"; sleep 0.05; done';
/** Time for output written just before the pause to arrive. Generous, for loaded machines. */
const SETTLE_MS = 500;
/** How long the paused command is watched for progress. */
const WATCH_MS = 1_000;

export function describePause(ctx: SuiteContext): void {
  describe('pause and resume', () => {
    it('exec in a paused sandbox throws CONFLICT; after resume it runs', async () => {
      const { id } = await ctx.start();
      await ctx.runtime.pause(id);
      expectPlatformError(await execError(ctx.runtime, id, { command: 'echo nope' }), 'CONFLICT');
      await ctx.runtime.resume(id);
      expect(await execOk(ctx.runtime, id, 'echo yes')).toBe('yes\n');
    });

    it('a running command makes no progress while paused and goes on after resume', async () => {
      const sandbox = await ctx.start();
      const { id } = sandbox;
      let last = 0;
      let pending = '';
      let stop = false;
      let ended = false;
      const consumer = (async () => {
        for await (const event of ctx.runtime.exec(id, { command: TICKER })) {
          if (event.type === 'stdout') {
            pending += event.data;
            const lines = pending.split('\n');
            pending = lines.pop() ?? '';
            for (const line of lines) last = Number(line);
          }
          if (stop) break;
        }
        ended = true;
      })();
      const logSize = (): number | undefined => (ctx.workingDirOnHost ? statSync(join(sandbox.workingDir, 'ticks.log')).size : undefined);

      try {
        await waitFor(PROMPT_END_MS, 'the ticker counting to 3', () => last >= 3);
        await ctx.runtime.pause(id);
        expect((await ctx.runtime.inspect(id)).status).toBe('PAUSED');
        await sleep(SETTLE_MS);
        const frozenAt = last;
        const frozenSize = logSize();
        await sleep(WATCH_MS);
        expect(last, 'ticks received while paused').toBe(frozenAt);
        expect(logSize(), 'log size while paused').toBe(frozenSize);
        expect(ended).toBe(false);

        await ctx.runtime.resume(id);
        expect((await ctx.runtime.inspect(id)).status).toBe('RUNNING');
        await waitFor(PROMPT_END_MS, 'the ticker going on after resume', () => last > frozenAt + 2);
      } finally {
        stop = true;
        await ctx.runtime.resume(id).catch(() => undefined);
        await within(PROMPT_END_MS, 'stopping the ticker', consumer);
      }
      // The log agrees with the stream: the command went on where it stopped.
      const lines = (await execOk(ctx.runtime, id, 'cat ticks.log')).trim().split('\n').map(Number);
      expect(lines.slice(0, last)).toEqual(Array.from({ length: last }, (_, index) => index + 1));
    });
  });
}
