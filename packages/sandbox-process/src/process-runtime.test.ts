import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import type { ErrorCode, ExecEvent, ExecInput, SandboxRuntime } from '@agent-platform/core';
import { testSandboxRuntime, uniqueId } from '@agent-platform/testing';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_PATH, DEFAULT_SPEC_ID, RUNTIME_NAME, createProcessRuntime } from './index.js';

testSandboxRuntime('process', () => createProcessRuntime(), { workingDirOnHost: true });

/** Liveness bound: long enough for a loaded machine, far below the 30 s sleeps it guards against. */
const PROMPT_MS = 10_000;

async function run(runtime: SandboxRuntime, sandboxId: string, input: ExecInput | string) {
  const events: ExecEvent[] = [];
  for await (const event of runtime.exec(sandboxId, typeof input === 'string' ? { command: input } : input)) {
    events.push(event);
  }
  let stdout = '';
  let stderr = '';
  for (const event of events) {
    if (event.type === 'stdout') stdout += event.data;
    if (event.type === 'stderr') stderr += event.data;
  }
  const last = events.at(-1);
  if (last?.type !== 'exit') throw new Error('no exit event');
  return { events, stdout, stderr, result: last.result };
}

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error('expected a PlatformError');
}

async function execFailure(runtime: SandboxRuntime, sandboxId: string, input: ExecInput): Promise<PlatformError> {
  return failure(run(runtime, sandboxId, input));
}

function expectCode(error: PlatformError, code: ErrorCode): void {
  expect(error.code).toBe(code);
}

/** Whether `pid` is a live process (a zombie waiting for its parent to reap it counts as gone). */
function alive(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function waitUntil(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + PROMPT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${PROMPT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('createProcessRuntime', () => {
  let runtime: SandboxRuntime;
  let scratch: string;

  beforeEach(async () => {
    runtime = createProcessRuntime();
    scratch = realpathSync(await mkdtemp(join(tmpdir(), 'sandbox-process-test-')));
  });

  afterEach(async () => {
    await runtime.close();
    await rm(scratch, { recursive: true, force: true });
  });

  describe('identity and options', () => {
    it('is named after the runtime', () => {
      expect(RUNTIME_NAME).toBe('process');
      expect(runtime.name).toBe('process');
    });

    it('offers one default spec with a sane PATH', async () => {
      const specs = await runtime.listSpecs();
      expect(specs).toEqual([
        {
          id: DEFAULT_SPEC_ID,
          command: null,
          created_at: expect.any(String),
          initial_env: { PATH: DEFAULT_PATH },
          working_dir: '/workspace',
        },
      ]);
      // Copies: changing what was returned changes nothing.
      specs[0]!.initial_env.PATH = '/nowhere';
      expect((await runtime.listSpecs())[0]!.initial_env.PATH).toBe(DEFAULT_PATH);
    });

    it('offers the given specs, and refuses invalid ones', async () => {
      const spec = {
        id: 'custom',
        command: null,
        created_at: '2025-01-01T00:00:00Z',
        initial_env: { PATH: DEFAULT_PATH, GREETING: 'hi' },
        working_dir: '/w',
      };
      const custom = createProcessRuntime({ specs: [spec] });
      try {
        expect(await custom.listSpecs()).toEqual([spec]);
        const { id } = await custom.start({ sandboxId: uniqueId('sbx'), specId: 'custom' });
        expect((await run(custom, id, 'printf %s "$GREETING"')).stdout).toBe('hi');
        expectCode(await failure(custom.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID })), 'NOT_FOUND');
      } finally {
        await custom.close();
      }
      const invalid = (specs: unknown) => () => createProcessRuntime({ specs: specs as never });
      expect(invalid([])).toThrow(PlatformError);
      expect(invalid([{ ...spec, created_at: 'yesterday' }])).toThrow(PlatformError);
      expect(invalid([spec, spec])).toThrow(/Duplicate spec id/);
      expect(() => createProcessRuntime({ defaultTimeoutMs: 0 })).toThrow(PlatformError);
      expect(() => createProcessRuntime({ maxOutputBytes: -1 })).toThrow(PlatformError);
    });

    it('puts sandboxes under a given rootDir, and close keeps the rootDir', async () => {
      const rootDir = join(scratch, 'root');
      const custom = createProcessRuntime({ rootDir });
      const sandbox = await custom.start({ sandboxId: 'sbx-in-root', specId: DEFAULT_SPEC_ID });
      expect(sandbox.workingDir).toBe(join(rootDir, 'sbx-in-root', 'workspace'));
      expect((await run(custom, sandbox.id, 'printf %s "$HOME"')).stdout).toBe(join(rootDir, 'sbx-in-root'));
      await custom.close();
      expect(existsSync(rootDir)).toBe(true);
      expect(await readdir(rootDir)).toEqual([]);
    });

    it('creates its default root lazily under the temp dir and removes it on close', async () => {
      const sandbox = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const root = dirname(dirname(sandbox.workingDir));
      expect(root.startsWith(realpathSync(tmpdir()))).toBe(true);
      expect((await run(runtime, sandbox.id, 'printf %s "$HOME"')).stdout).toBe(dirname(sandbox.workingDir));
      await runtime.close();
      expect(existsSync(root)).toBe(false);
    });

    it('applies defaultTimeoutMs, which an exec timeoutMs overrides', async () => {
      const custom = createProcessRuntime({ defaultTimeoutMs: 300 });
      try {
        const { id } = await custom.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
        expect((await run(custom, id, 'sleep 30')).result).toMatchObject({ exitCode: null, timedOut: true });
        expect((await run(custom, id, { command: 'sleep 0.5; echo ok', timeoutMs: 20_000 })).result).toMatchObject({
          exitCode: 0,
          timedOut: false,
        });
      } finally {
        await custom.close();
      }
    });

    it('applies its maxOutputBytes default, which an exec maxOutputBytes overrides', async () => {
      expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(1024 * 1024);
      const custom = createProcessRuntime({ maxOutputBytes: 10 });
      try {
        const { id } = await custom.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
        expect(await run(custom, id, 'echo 0123456789abcdef')).toMatchObject({
          stdout: '0123456789',
          result: { truncated: true },
        });
        expect(await run(custom, id, { command: 'echo 0123456789abcdef', maxOutputBytes: 100 })).toMatchObject({
          stdout: '0123456789abcdef\n',
          result: { truncated: false },
        });
      } finally {
        await custom.close();
      }
    });
  });

  describe('start', () => {
    it('ignores limits: this runtime cannot enforce them', async () => {
      const sandbox = await runtime.start({
        sandboxId: uniqueId('sbx'),
        specId: DEFAULT_SPEC_ID,
        limits: { memoryBytes: 1, cpus: 0.1, pids: 1 },
      });
      expect(sandbox.status).toBe('RUNNING');
      expect((await run(runtime, sandbox.id, 'echo a | cat | cat')).stdout).toBe('a\n');
    });

    it('refuses a sandbox id that exists, and ids that are not a plain name', async () => {
      const sandboxId = uniqueId('sbx');
      await runtime.start({ sandboxId, specId: DEFAULT_SPEC_ID });
      expectCode(await failure(runtime.start({ sandboxId, specId: DEFAULT_SPEC_ID })), 'CONFLICT');
      for (const bad of ['', '..', '../escape', 'a/b', '.hidden', 'x'.repeat(201)]) {
        expectCode(await failure(runtime.start({ sandboxId: bad, specId: DEFAULT_SPEC_ID })), 'VALIDATION_FAILED');
      }
    });

    it('refuses to start over a directory another runtime left in a shared rootDir', async () => {
      const rootDir = join(scratch, 'shared');
      const first = createProcessRuntime({ rootDir });
      const second = createProcessRuntime({ rootDir });
      try {
        await first.start({ sandboxId: 'same', specId: DEFAULT_SPEC_ID });
        expectCode(await failure(second.start({ sandboxId: 'same', specId: DEFAULT_SPEC_ID })), 'CONFLICT');
        expect((await second.inspect('same')).status).toBe('MISSING');
      } finally {
        await first.close();
        await second.close();
      }
    });

    it('says STARTING while a start is in flight, and waits for it on pause', async () => {
      const sandboxId = uniqueId('sbx');
      const started = runtime.start({ sandboxId, specId: DEFAULT_SPEC_ID });
      expect((await runtime.inspect(sandboxId)).status).toBe('STARTING');
      await runtime.pause(sandboxId);
      await started;
      expect((await runtime.inspect(sandboxId)).status).toBe('PAUSED');
    });

    it('refuses everything after close', async () => {
      await runtime.close();
      await runtime.close();
      expectCode(await failure(runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID })), 'UNAVAILABLE');
    });

    it('pause and resume are idempotent', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      await runtime.pause(id);
      await runtime.pause(id);
      expect((await runtime.inspect(id)).status).toBe('PAUSED');
      await runtime.resume(id);
      await runtime.resume(id);
      expect((await runtime.inspect(id)).status).toBe('RUNNING');
    });
  });

  describe('environment', () => {
    it('passes nothing from the host: only PATH, HOME and what sh sets itself', async () => {
      process.env.SANDBOX_PROCESS_TEST_SECRET = 'host-secret';
      const fresh = createProcessRuntime();
      try {
        const { id } = await fresh.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
        const { stdout } = await run(fresh, id, 'env');
        expect(stdout).not.toContain('host-secret');
        const names = stdout
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => line.slice(0, line.indexOf('=')));
        expect(names.filter((name) => !['PATH', 'HOME', 'PWD', 'OLDPWD', 'SHLVL', '_'].includes(name))).toEqual([]);
      } finally {
        delete process.env.SANDBOX_PROCESS_TEST_SECRET;
        await fresh.close();
      }
    });

    it('lets start and exec env override HOME', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID, env: { HOME: '/h1' } });
      expect((await run(runtime, id, 'printf %s "$HOME"')).stdout).toBe('/h1');
      expect((await run(runtime, id, { command: 'printf %s "$HOME"', env: { HOME: '/h2' } })).stdout).toBe('/h2');
    });

    it('refuses env names with "=" or NUL', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      expectCode(await execFailure(runtime, id, { command: 'true', env: { 'A=B': 'x' } }), 'VALIDATION_FAILED');
      expectCode(await execFailure(runtime, id, { command: 'true', env: { A: 'x\0y' } }), 'VALIDATION_FAILED');
      expectCode(await failure(runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID, env: { '': 'x' } })), 'VALIDATION_FAILED');
    });
  });

  describe('stdin', () => {
    it('refuses stdin that is neither a string, bytes nor an async iterable, running nothing', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      for (const stdin of [42, { text: 'x' }, ['a', 'b'], null]) {
        const input = { command: 'touch ran.txt', stdin } as unknown as ExecInput;
        expectCode(await execFailure(runtime, id, input), 'VALIDATION_FAILED');
      }
      expect((await run(runtime, id, 'test -e ran.txt && echo ran || echo not-run')).stdout).toBe('not-run\n');
    });

    it('ends the input when the iterable throws, or yields something that is not text or bytes', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      async function* failing(): AsyncGenerator<string> {
        yield 'before\n';
        throw new Error('input failed');
      }
      const failed = await run(runtime, id, { command: 'cat; echo after', stdin: failing() });
      expect(failed.stdout).toBe('before\nafter\n');
      expect(failed.result.exitCode).toBe(0);

      let closed = false;
      async function* odd(): AsyncGenerator<unknown> {
        try {
          yield 'text\n';
          yield 42;
          yield 'never\n';
        } finally {
          closed = true;
        }
      }
      const input = { command: 'cat', stdin: odd() } as unknown as ExecInput;
      expect((await run(runtime, id, input)).stdout).toBe('text\n');
      expect(closed).toBe(true);
    });
  });

  describe('files', () => {
    it('refuses paths that leave the sandbox directory, and writes none of the batch', async () => {
      const sandbox = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const sandboxDir = dirname(sandbox.workingDir);
      const escapes = [
        '../../escaped.txt',
        '../../../../../../../../tmp/escaped.txt',
        join(scratch, 'escaped.txt'),
        '/etc/agent-platform-escaped',
        sandboxDir,
        `${sandboxDir}-sibling/file.txt`,
        '',
      ];
      for (const path of escapes) {
        const error = await execFailure(runtime, sandbox.id, {
          command: 'touch ran.txt',
          files: [
            { path: 'first.txt', content: 'ok' },
            { path, content: 'nope' },
          ],
        });
        expectCode(error, 'VALIDATION_FAILED');
        expect(error.issues?.[0]?.loc).toEqual(['files', 1, 'path']);
      }
      expect(existsSync(join(scratch, 'escaped.txt'))).toBe(false);
      expect(existsSync(join(dirname(sandboxDir), 'escaped.txt'))).toBe(false);
      expect(await readdir(sandbox.workingDir)).toEqual([]);
    });

    it('allows paths inside the sandbox directory but outside the working directory (HOME)', async () => {
      const sandbox = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const { stdout } = await run(runtime, sandbox.id, {
        command: 'cat "$HOME/.config/tool.json"; cat ../rel.txt',
        files: [
          { path: '../.config/tool.json', content: '{}\n' },
          { path: `${dirname(sandbox.workingDir)}/rel.txt`, content: 'rel\n' },
        ],
      });
      expect(stdout).toBe('{}\nrel\n');
    });

    it('refuses to write through symbolic links that lead out', async () => {
      const sandbox = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const outside = join(scratch, 'outside');
      await writeFile(join(scratch, 'victim.txt'), 'original');
      await run(runtime, sandbox.id, `mkdir -p '${outside}' && ln -s '${outside}' linkdir && ln -s '${scratch}/victim.txt' linkfile`);
      expectCode(await execFailure(runtime, sandbox.id, { command: 'true', files: [{ path: 'linkdir/x.txt', content: 'x' }] }), 'VALIDATION_FAILED');
      expectCode(await execFailure(runtime, sandbox.id, { command: 'true', files: [{ path: 'linkfile', content: 'x' }] }), 'VALIDATION_FAILED');
      expect(await readdir(outside)).toEqual([]);
      expect(readFileSync(join(scratch, 'victim.txt'), 'utf8')).toBe('original');
    });

    it('refuses invalid modes and contents', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      for (const file of [
        { path: 'a', content: 'x', mode: 0o10000 },
        { path: 'a', content: 'x', mode: 1.5 },
        { path: 'a', content: 42 as never },
      ]) {
        expectCode(await execFailure(runtime, id, { command: 'true', files: [file] }), 'VALIDATION_FAILED');
      }
    });
  });

  describe('exec', () => {
    it('kills the whole process group when the consumer breaks early', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      let pids: number[] = [];
      for await (const event of runtime.exec(id, { command: 'sleep 30 & echo "$$ $!"; sleep 30' })) {
        if (event.type === 'stdout') {
          pids = event.data.trim().split(' ').map(Number);
          break;
        }
      }
      expect(pids).toHaveLength(2);
      // return() resolves once the group is killed and the shell has exited.
      expect(alive(pids[0]!)).toBe(false);
      await waitUntil('the background sleep to die', () => !alive(pids[1]!));
    });

    it('kills the command when the consumer throws', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      let pid = 0;
      await expect(
        (async () => {
          for await (const event of runtime.exec(id, { command: 'echo $$; sleep 30' })) {
            if (event.type === 'stdout') {
              pid = Number(event.data.trim());
              throw new Error('consumer failed');
            }
          }
        })(),
      ).rejects.toThrow('consumer failed');
      expect(pid).toBeGreaterThan(0);
      expect(alive(pid)).toBe(false);
    });

    it('starts nothing until the iterable is iterated', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const iterable = runtime.exec(id, { command: 'touch started.txt' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await run(runtime, id, 'ls')).stdout).toBe('');
      for await (const event of iterable) void event;
      expect((await run(runtime, id, 'ls')).stdout).toBe('started.txt\n');
    });

    it('lets background processes outlive their command; pause, resume and delete reach them', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      // The background process keeps the output pipes open; the stream still ends promptly.
      const started = Date.now();
      const { stdout, result } = await run(runtime, id, 'sleep 30 & echo $!');
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
      expect(result.exitCode).toBe(0);
      const pid = Number(stdout.trim());
      expect(alive(pid)).toBe(true);
      if (process.platform === 'linux') {
        await runtime.pause(id);
        await waitUntil('the background process to stop', () => processState(pid) === 'T');
        await runtime.resume(id);
        await waitUntil('the background process to continue', () => processState(pid) !== 'T');
      }
      await runtime.delete(id);
      await waitUntil('the background process to die', () => !alive(pid));
    });

    it('close kills what the sandboxes left running', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const pid = Number((await run(runtime, id, 'sleep 30 > /dev/null 2>&1 & echo $!')).stdout.trim());
      expect(alive(pid)).toBe(true);
      await runtime.close();
      await waitUntil('the background process to die', () => !alive(pid));
    });

    it('a timeout and an abort kill a paused command too', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const controller = new AbortController();
      const timed = run(runtime, id, { command: 'echo $$; sleep 30', timeoutMs: 1_000 });
      const aborted = run(runtime, id, { command: 'sleep 30', signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await runtime.pause(id);
      controller.abort();
      expect((await timed).result).toMatchObject({ exitCode: null, timedOut: true });
      expect((await aborted).result).toMatchObject({ exitCode: null, cancelled: true });
      await runtime.resume(id);
    });

    it('runs concurrent commands in one sandbox, each with its own output', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, index) => run(runtime, id, `sleep 0.1; echo ${index}; exit ${index}`)));
      outcomes.forEach((outcome, index) => {
        expect(outcome.stdout).toBe(`${index}\n`);
        expect(outcome.result.exitCode).toBe(index);
      });
    });

    it('does not cut a multi-byte character at the output limit', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const outcome = await run(runtime, id, { command: "printf 'ééé'", maxOutputBytes: 5 });
      expect(outcome.stdout).toBe('éé');
      expect(outcome.result.truncated).toBe(true);
    });

    it('passes invalid UTF-8 through as replacement characters', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      expect((await run(runtime, id, "printf 'a\\377b\\303'")).stdout).toBe('a\uFFFDb\uFFFD');
    });

    it('reports a command killed by a signal with exitCode null', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      expect((await run(runtime, id, 'kill -9 $$')).result).toEqual({
        exitCode: null,
        timedOut: false,
        cancelled: false,
        truncated: false,
      });
    });

    it('recreates a working directory a command removed', async () => {
      const sandbox = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      await run(runtime, sandbox.id, `rm -rf '${sandbox.workingDir}'`);
      expect((await run(runtime, sandbox.id, 'pwd')).stdout).toBe(`${sandbox.workingDir}\n`);
    });

    it('refuses invalid input', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      for (const input of [
        { command: 'echo \0' },
        { command: 'true', timeoutMs: -1 },
        { command: 'true', timeoutMs: Number.NaN },
        { command: 'true', maxOutputBytes: 1.5 },
        { command: 42 as never },
      ]) {
        expectCode(await execFailure(runtime, id, input), 'VALIDATION_FAILED');
      }
    });
  });

  describe('delete', () => {
    it('removes directories a command made read-only', async () => {
      const sandbox = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      await run(runtime, sandbox.id, 'mkdir -p ro/sub && touch ro/sub/f && chmod 500 ro/sub ro && chmod 500 .');
      await runtime.delete(sandbox.id);
      expect(existsSync(dirname(sandbox.workingDir))).toBe(false);
    });

    it('concurrent deletes remove it once; the other gets NOT_FOUND', async () => {
      const { id } = await runtime.start({ sandboxId: uniqueId('sbx'), specId: DEFAULT_SPEC_ID });
      const results = await Promise.allSettled([runtime.delete(id), runtime.delete(id)]);
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    });
  });

  describe('host exit', () => {
    it('kills the commands of a host that exits', async () => {
      const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
      const script = join(scratch, 'host.mts');
      await writeFile(
        script,
        [
          `import { createProcessRuntime } from ${JSON.stringify(join(packageDir, 'src/index.ts'))};`,
          `const runtime = createProcessRuntime({ rootDir: ${JSON.stringify(join(scratch, 'root'))} });`,
          "const { id } = await runtime.start({ sandboxId: 'host-exit', specId: 'process-default' });",
          "for await (const event of runtime.exec(id, { command: 'sleep 30 > /dev/null 2>&1 & echo $!' })) {",
          "  if (event.type === 'stdout') process.stdout.write(event.data);",
          '}',
          'process.exit(0);',
        ].join('\n'),
      );
      const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', script], {
        cwd: packageDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(0);
      const pid = Number(stdout.trim());
      expect(pid).toBeGreaterThan(0);
      await waitUntil('the orphaned command to die', () => !alive(pid));
    }, 30_000);
  });
});
