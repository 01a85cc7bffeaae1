/**
 * Conformance: running commands — output, exit codes, environment, files, working directory,
 * timeouts, cancellation and output limits.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { present } from '../fixtures/present.js';
import type { ExecEvent } from '@agent-platform/core';
import type { SuiteContext } from './context.js';
import { PROMPT_END_MS, execAll, execOk, expectWellFormed, printVars, shellQuote, within } from './helpers.js';

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How long a command that should have been killed gets to show it was not. */
const EARLY_STOP_WATCH_MS = 2_000;

export function describeExec(ctx: SuiteContext): void {
  describe('exec', () => {
    it('streams stdout and stderr apart and ends with exit code 0', async () => {
      const { id } = await ctx.start();
      const outcome = await execAll(ctx.runtime, id, { command: 'echo out; echo err >&2; echo more' });
      expect(outcome.stdout).toBe('out\nmore\n');
      expect(outcome.stderr).toBe('err\n');
      expect(outcome.result).toEqual({ exitCode: 0, timedOut: false, cancelled: false, truncated: false });
    });

    it('reports non-zero exit codes', async () => {
      const { id } = await ctx.start();
      expect((await execAll(ctx.runtime, id, { command: 'exit 3' })).result).toEqual({
        exitCode: 3,
        timedOut: false,
        cancelled: false,
        truncated: false,
      });
      expect((await execAll(ctx.runtime, id, { command: 'echo failing >&2; false' })).result.exitCode).toBe(1);
    });

    it('streams output while the command runs; a consumer that stops early kills the command', async () => {
      const { id } = await ctx.start();
      const seen: ExecEvent[] = [];
      const takeFirstOutput = async (): Promise<void> => {
        const command = 'echo first; sleep 0.5; touch survived.txt; sleep 30';
        for await (const event of ctx.runtime.exec(id, { command })) {
          seen.push(event);
          if (event.type === 'stdout') break;
        }
      };
      await within(PROMPT_END_MS, 'output of a still-running command', takeFirstOutput());
      expect(seen).toEqual([{ type: 'stdout', data: 'first\n' }]);
      // Had it lived on, it would have touched the file by now (or at worst lets a bug pass).
      await sleep(EARLY_STOP_WATCH_MS);
      expect(await execOk(ctx.runtime, id, 'test -e survived.txt && echo survived || echo killed')).toBe('killed\n');
    });

    it('keeps multi-byte characters whole when they are split across writes', async () => {
      const { id } = await ctx.start();
      // "é" is \303\251 and "€" is \342\202\254 in UTF-8; each is split by a pause between writes.
      const command = "printf '\\303'; sleep 0.2; printf '\\251 \\342\\202'; sleep 0.2; printf '\\254\\n'";
      const outcome = await execAll(ctx.runtime, id, { command });
      expect(outcome.stdout).toBe('é €\n');
    });

    it("has the spec's initial_env", async () => {
      const specId = await ctx.specIdFor(ctx.runtime);
      const spec = (await ctx.runtime.listSpecs()).find((candidate) => candidate.id === specId);
      expect(spec).toBeDefined();
      const { initial_env } = present(spec, `the spec ${specId}`);
      const names = Object.keys(initial_env).filter((name) => SHELL_NAME.test(name));
      const { id } = await ctx.start({ specId });
      if (names.length === 0) return;
      const stdout = await execOk(ctx.runtime, id, printVars(...names));
      expect(stdout).toBe(names.map((name) => `${initial_env[name]}|`).join(''));
    });

    it('layers the environment: spec, then start env, then exec env (later wins), per command', async () => {
      const specId = await ctx.specIdFor(ctx.runtime);
      const spec = present(
        (await ctx.runtime.listSpecs()).find((candidate) => candidate.id === specId),
        `the spec ${specId}`,
      );
      // Overriding PATH with a longer PATH keeps commands working while showing who won.
      const basePath = spec.initial_env.PATH;
      const startEnv: Record<string, string> = { FROM_START: 'start', BOTH: 'start', SPACED: 'a b  "c" $d' };
      if (basePath !== undefined) startEnv.PATH = `${basePath}:/start-path`;
      const { id } = await ctx.start({ specId, env: startEnv });

      const execEnv: Record<string, string> = { BOTH: 'exec', FROM_EXEC: 'exec' };
      if (basePath !== undefined) execEnv.PATH = `${basePath}:/exec-path`;
      const vars = ['FROM_START', 'BOTH', 'FROM_EXEC', 'SPACED'];
      expect(await execOk(ctx.runtime, id, { command: printVars(...vars), env: execEnv })).toBe('start|exec|exec|a b  "c" $d|');
      // Exec env lasts for that command only.
      expect(await execOk(ctx.runtime, id, printVars(...vars))).toBe('start|start|<unset>|a b  "c" $d|');
      if (basePath !== undefined) {
        expect(await execOk(ctx.runtime, id, { command: 'printf %s "$PATH"', env: execEnv })).toBe(`${basePath}:/exec-path`);
        expect(await execOk(ctx.runtime, id, 'printf %s "$PATH"')).toBe(`${basePath}:/start-path`);
      }
    });

    it("does not pass the host's environment through", async () => {
      const name = `AGENT_PLATFORM_HOST_LEAK_${process.pid}`;
      const previous = process.env[name];
      process.env[name] = 'leaked';
      // A runtime built after the variable is set, in case it reads the environment when created.
      const runtime = await ctx.factory();
      try {
        const { id } = await ctx.start({}, runtime);
        expect(await execOk(runtime, id, printVars(name))).toBe('<unset>|');
        expect(await execOk(runtime, id, `env | grep -c ${name} || true`)).toBe('0\n');
      } finally {
        if (previous === undefined) delete process.env[name];
        else process.env[name] = previous;
        await runtime.close();
      }
    });

    it('runs commands in the working directory, where files persist between commands', async () => {
      const sandbox = await ctx.start();
      expect(await execOk(ctx.runtime, sandbox.id, 'pwd')).toBe(`${sandbox.workingDir}\n`);
      await execOk(ctx.runtime, sandbox.id, 'echo kept > kept.txt');
      expect(await execOk(ctx.runtime, sandbox.id, `cat ${shellQuote(`${sandbox.workingDir}/kept.txt`)}`)).toBe('kept\n');
    });

    it('writes files before the command runs: text, bytes, nested and absolute paths', async () => {
      const sandbox = await ctx.start();
      const stdout = await execOk(ctx.runtime, sandbox.id, {
        command: ['cat note.txt; echo', 'od -An -tx1 bytes.bin | tr -s " \\n" " "; echo', 'cat deep/er/dir/file.txt abs.txt'].join('; '),
        files: [
          { path: 'note.txt', content: 'héllo "world"' },
          { path: 'bytes.bin', content: new Uint8Array([0, 1, 127, 255]) },
          { path: 'deep/er/dir/file.txt', content: 'nested\n' },
          { path: `${sandbox.workingDir}/abs.txt`, content: 'absolute\n' },
        ],
      });
      expect(stdout).toBe('héllo "world"\n 00 01 7f ff \nnested\nabsolute\n');
    });

    it('a later file write replaces the content', async () => {
      const { id } = await ctx.start();
      await execOk(ctx.runtime, id, { command: 'true', files: [{ path: 'f.txt', content: 'a longer first text' }] });
      const stdout = await execOk(ctx.runtime, id, {
        command: 'cat f.txt',
        files: [{ path: 'f.txt', content: 'short' }],
      });
      expect(stdout).toBe('short');
    });

    it('writes files with the given mode, 0644 by default', async (test) => {
      if (!ctx.fileModes) test.skip();
      const { id } = await ctx.start();
      const stdout = await execOk(ctx.runtime, id, {
        command: 'ls -ln secret.txt plain.txt script.sh | cut -c1-10',
        files: [
          { path: 'secret.txt', content: 'hunter2', mode: 0o600 },
          { path: 'plain.txt', content: 'hello' },
          { path: 'script.sh', content: '#!/bin/sh\necho ran\n', mode: 0o755 },
        ],
      });
      expect(stdout).toBe('-rw-r--r--\n-rwxr-xr-x\n-rw-------\n');
      expect(await execOk(ctx.runtime, id, './script.sh')).toBe('ran\n');
    });

    it('kills a command at timeoutMs: exitCode null, timedOut', async () => {
      const { id } = await ctx.start();
      const running = execAll(ctx.runtime, id, { command: 'sleep 30', timeoutMs: 300 });
      const outcome = await within(PROMPT_END_MS, 'a 30 s sleep with a 300 ms timeout', running);
      expect(outcome.result).toEqual({ exitCode: null, timedOut: true, cancelled: false, truncated: false });
      expect(await execOk(ctx.runtime, id, 'echo still-usable')).toBe('still-usable\n');
    });

    it('kills a command when its signal aborts: exitCode null, cancelled', async () => {
      const { id } = await ctx.start();
      const controller = new AbortController();
      const events: ExecEvent[] = [];
      const abortOnOutput = async (): Promise<void> => {
        const input = { command: 'echo started; sleep 30', signal: controller.signal };
        for await (const event of ctx.runtime.exec(id, input)) {
          events.push(event);
          if (event.type === 'stdout') controller.abort();
        }
      };
      await within(PROMPT_END_MS, 'an aborted 30 s sleep', abortOnOutput());
      expect(expectWellFormed(events)).toEqual({ exitCode: null, timedOut: false, cancelled: true, truncated: false });
    });

    it('runs nothing for an already aborted signal and says cancelled', async () => {
      const { id } = await ctx.start();
      const outcome = await execAll(ctx.runtime, id, { command: 'touch ran.txt', signal: AbortSignal.abort() });
      expect(outcome.result).toMatchObject({ exitCode: null, cancelled: true });
      expect(await execOk(ctx.runtime, id, 'test -e ran.txt && echo ran || echo not-run')).toBe('not-run\n');
    });

    it('drops output beyond maxOutputBytes per stream and says truncated', async () => {
      const { id } = await ctx.start();
      const limit = 1000;
      const full = 'a'.repeat(100_000);
      const outcome = await execAll(ctx.runtime, id, {
        command: "head -c 100000 /dev/zero | tr '\\0' a; head -c 100000 /dev/zero | tr '\\0' a >&2; echo done >&2",
        maxOutputBytes: limit,
      });
      expect(outcome.result).toEqual({ exitCode: 0, timedOut: false, cancelled: false, truncated: true });
      for (const text of [outcome.stdout, outcome.stderr]) {
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limit);
        expect(full.startsWith(text)).toBe(true);
      }
      const small = await execAll(ctx.runtime, id, { command: 'echo small', maxOutputBytes: limit });
      expect(small.result.truncated).toBe(false);
      expect(small.stdout).toBe('small\n');
    });
  });
}
