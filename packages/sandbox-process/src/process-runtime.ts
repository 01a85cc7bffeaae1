/**
 * The process `SandboxRuntime`: sandboxes as directories, commands as child processes of the host.
 * @module
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformError, notFound, validationError } from '@agent-platform/core';
import type { ExecEvent, ExecInput, RuntimeSandbox, SandboxRuntime, SandboxSpec, SandboxStatus, StartSandboxInput } from '@agent-platform/core';
import { checkEnv, checkExecInput, checkMaxOutput, checkSpecs, checkTimeout } from './checks.js';
import { ExecRun } from './exec-run.js';
import { bindEmptyDir, bindTree, ensureLifeline, holdLifeline, releaseLifeline, unbindEmptyDir, unbindTree } from './lifeline.js';
import { groupAlive, signalGroup, untrackGroup, waitGroupGone } from './process-groups.js';
import { removeTree } from './remove-tree.js';
import { writeSandboxFiles } from './sandbox-files.js';

/** The adapter name, as `SandboxRuntime.name`. */
export const RUNTIME_NAME = 'process';
/** The id of the spec a runtime without `specs` offers. */
export const DEFAULT_SPEC_ID = 'process-default';
/** `PATH` of the default spec. */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Output kept per stream of a command when neither the runtime nor the exec sets a limit: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** The subdirectory of a sandbox directory that commands run in. */
const WORKSPACE_DIR = 'workspace';
/** How long delete waits for killed processes to be gone before removing their directory. */
const KILL_WAIT_MS = 2_000;
const SANDBOX_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

export interface ProcessRuntimeOptions {
  /**
   * Where sandbox directories go. Default: a fresh directory under `os.tmpdir()`, created on the
   * first start and removed by `close()`. A given directory is created if needed and kept by
   * `close()` (only the sandboxes in it are removed).
   */
  rootDir?: string;
  /** The specs offered, the first being the default. Default: one spec, {@link DEFAULT_SPEC_ID}. */
  specs?: SandboxSpec[];
  /** Timeout of a command whose `ExecInput` sets none. Default: none. */
  defaultTimeoutMs?: number;
  /** Output kept per stream of a command whose `ExecInput` sets no limit. Default {@link DEFAULT_MAX_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
}

interface SandboxState {
  readonly id: string;
  readonly specId: string;
  /** `<rootDir>/<id>`, also HOME. */
  readonly dir: string;
  readonly workingDir: string;
  /** Spec `initial_env` + start `env`, under HOME. */
  readonly env: Record<string, string>;
  status: 'RUNNING' | 'PAUSED';
  /** Started with `boundToProcess`: the lifeline removes its directory when this process dies. */
  readonly bound: boolean;
  /** Process groups of its commands, running or left behind, not yet seen dead. */
  readonly groups: Set<number>;
  readonly runs: Set<ExecRun>;
  /** Execs still writing files or preparing; delete waits for them before removing the directory. */
  readonly preparing: Set<Promise<unknown>>;
  /** The tail of its pause, resume and delete calls, which run one after another. */
  operations: Promise<void>;
}

interface StartingSandbox {
  readonly specId: string;
  readonly done: Promise<unknown>;
}

/**
 * Builds the process {@link SandboxRuntime}, the embedded default: a sandbox is a directory on
 * this machine and a command is a `/bin/sh -c` child process of the host. Nothing touches the
 * disk before the first `start`.
 *
 * **It is not an isolation boundary.** Commands run as the host's user, can read and write
 * anything that user can, and reach the network. Use it for development, tests and trusted
 * workloads; use a container runtime for anything else. What it does give:
 *
 * - a directory per sandbox, `<rootDir>/<sandboxId>`, which is also `HOME`; commands run in its
 *   `workspace/` subdirectory, the {@link RuntimeSandbox.workingDir} it reports (a real path on
 *   this machine; a spec's `working_dir` is informational here);
 * - a clean environment: `HOME`, then the spec's `initial_env`, the start `env` and the exec
 *   `env` (later wins). Nothing comes from the host's `process.env`;
 * - every command in its own process group, so timeouts, aborts, pause (SIGSTOP), resume
 *   (SIGCONT) and delete (SIGKILL) reach everything it started, unless a process leaves the
 *   group on purpose (`setsid`);
 * - output decoded as UTF-8 and bounded per stream ({@link ProcessRuntimeOptions.maxOutputBytes});
 * - `ExecInput.files` written only inside the sandbox directory: `..`, absolute paths outside it
 *   and symbolic links leading out are refused with `PlatformError` VALIDATION_FAILED; parent
 *   directories are created; the mode is applied exactly (default 0o644).
 *
 * Further behaviour worth knowing:
 *
 * - `limits` are ignored: nothing portable enforces memory, CPU or process limits on a process
 *   tree.
 * - It runs no container images: it has no `allowedImages`, and a start that asks for an
 *   `image` is refused (VALIDATION_FAILED). It takes no owner's credential either.
 * - Background processes a command leaves behind (`server &`) outlive the command and belong to
 *   the sandbox: pause, resume and delete reach them. Once the command's shell exits, its stream
 *   ends when its output has been read and the pipes are quiet (at most 2 s later), so give
 *   background processes their own output (`server > log 2>&1 &`).
 * - A consumer that stops iterating `exec` early (`break`, a throw) kills the command's whole
 *   group before `return()` resolves; iterate to the end to let background processes live on.
 * - `ExecInput.stdin` goes through a pipe (absent: stdin is `/dev/null`); an async iterable is
 *   written chunk by chunk as it yields, waiting while the pipe is full. When the command's shell
 *   exits or is killed, the pipe is closed and the iterable's `return()` called; an iterable
 *   that throws ends the input as if it had ended.
 * - `timeoutMs` counts wall time, paused time included.
 * - Errors (unknown sandbox NOT_FOUND, paused sandbox CONFLICT, bad input VALIDATION_FAILED) come
 *   from the first `next()` of the iterable `exec` returns; nothing runs until then. An already
 *   aborted signal runs nothing and ends with a `cancelled` exit.
 * - pause and resume are idempotent; pause, resume and delete of one sandbox run one at a time.
 * - Sandboxes live in memory: a new runtime over the same `rootDir` does not see another's, and
 *   a start whose id is in use, or whose directory already exists, fails with CONFLICT.
 * - Nothing outlives the host process, however it ends (a SIGKILL included): a small `sh`
 *   keeper, the lifeline, SIGKILLs every command's group still alive when the host is gone,
 *   paused ones too. A command starts only once its group is with the keeper. The sandbox
 *   directory stays, unless the sandbox was started with `boundToProcess`: then it goes too
 *   (and the runtime's own root, once empty). Processes that left their group (`setsid`) are
 *   not reached. One keeper per host process, while a runtime is open (from its first `start`
 *   until `close`).
 *
 * @example
 * ```ts
 * const runtime = createProcessRuntime({ defaultTimeoutMs: 600_000 });
 * const sandbox = await runtime.start({ sandboxId: 'sbx-1', specId: DEFAULT_SPEC_ID });
 * const files = [{ path: 'note.txt', content: 'hi', mode: 0o600 }];
 * for await (const event of runtime.exec(sandbox.id, { command: 'cat note.txt', files })) {
 *   if (event.type === 'stdout') process.stdout.write(event.data);
 *   if (event.type === 'exit') console.log(event.result.exitCode);
 * }
 * await runtime.close();
 * ```
 */
export function createProcessRuntime(options: ProcessRuntimeOptions = {}): SandboxRuntime {
  const specs = checkSpecs(options.specs ?? [defaultSpec()]);
  const defaultTimeoutMs = checkTimeout(options.defaultTimeoutMs, ['defaultTimeoutMs']);
  const defaultMaxOutput = checkMaxOutput(options.maxOutputBytes, ['maxOutputBytes']) ?? DEFAULT_MAX_OUTPUT_BYTES;

  const sandboxes = new Map<string, SandboxState>();
  const starting = new Map<string, StartingSandbox>();
  /** Deletes under way (the sandbox already left `sandboxes`); close waits for them. */
  const removals = new Set<Promise<void>>();
  let root: Promise<string> | undefined;
  let createdRoot: string | undefined;
  /** Whether this runtime holds the lifeline (from its first start until closed). */
  let holding = false;
  let closed = false;
  let closing: Promise<void> | undefined;

  function ensureRoot(): Promise<string> {
    root ??= (async () => {
      if (options.rootDir !== undefined) {
        await mkdir(options.rootDir, { recursive: true });
        return realpath(options.rootDir);
      }
      // Real path, so `pwd` inside a sandbox prints the `workingDir` reported (macOS: /var -> /private/var).
      createdRoot = await realpath(await mkdtemp(join(tmpdir(), 'agent-platform-sandboxes-')));
      bindEmptyDir(createdRoot); // removed, if nothing is left in it, should this process die
      return createdRoot;
    })();
    root.catch(() => {
      root = undefined;
    });
    return root;
  }

  /** The sandbox, after any start of it in flight; NOT_FOUND when there is none. */
  async function existing(sandboxId: string): Promise<SandboxState> {
    await starting.get(sandboxId)?.done.catch(() => undefined);
    const sandbox = sandboxes.get(sandboxId);
    if (!sandbox) throw notFound(`Sandbox ${JSON.stringify(sandboxId)}`);
    return sandbox;
  }

  /**
   * Runs a pause, resume or delete of the sandbox after the ones before it, once the sandbox is
   * known; NOT_FOUND when it was deleted meanwhile.
   */
  async function operate(sandboxId: string, operation: (sandbox: SandboxState) => Promise<void>): Promise<void> {
    const sandbox = await existing(sandboxId);
    const result = sandbox.operations.then(async () => {
      if (sandboxes.get(sandboxId) !== sandbox) throw notFound(`Sandbox ${JSON.stringify(sandboxId)}`);
      await operation(sandbox);
    });
    sandbox.operations = result.catch(() => undefined);
    return result;
  }

  /** Checks, synchronously, that the sandbox is still the one we hold and is running. */
  function runnable(sandboxId: string, expected?: SandboxState): SandboxState {
    const sandbox = sandboxes.get(sandboxId);
    if (!sandbox || (expected !== undefined && sandbox !== expected)) {
      throw notFound(`Sandbox ${JSON.stringify(sandboxId)}`);
    }
    if (sandbox.status !== 'RUNNING') {
      throw new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(sandboxId)} is ${sandbox.status}, not RUNNING`);
    }
    return sandbox;
  }

  async function forgetIfDead(sandbox: SandboxState, pgid: number): Promise<void> {
    if (await groupAlive(pgid)) return;
    sandbox.groups.delete(pgid);
    untrackGroup(pgid);
  }

  /**
   * Forgets the groups whose processes have all ended, before the sandbox's groups are
   * signalled: the fewer stale ids kept, the smaller the chance of signalling a stranger's group
   * that reused one.
   */
  async function pruneGroups(sandbox: SandboxState): Promise<void> {
    await Promise.all([...sandbox.groups].map((pgid) => forgetIfDead(sandbox, pgid)));
  }

  /** Work before the spawn; delete waits for it, so nothing is written after the directory is gone. */
  async function prepare(sandbox: SandboxState, input: ExecInput): Promise<void> {
    await pruneGroups(sandbox);
    if (input.files !== undefined && input.files.length > 0) {
      await writeSandboxFiles(sandbox.dir, sandbox.workingDir, input.files);
    }
    // A command may have removed its working directory; give the next one a place to start.
    await mkdir(sandbox.workingDir, { recursive: true });
  }

  async function* execute(sandboxId: string, input: ExecInput): AsyncGenerator<ExecEvent, void, undefined> {
    await starting.get(sandboxId)?.done.catch(() => undefined);
    const sandbox = runnable(sandboxId);
    const settings = checkExecInput(input, defaultTimeoutMs, defaultMaxOutput);
    if (input.signal?.aborted) {
      yield cancelledExit();
      return;
    }

    const preparing = prepare(sandbox, input);
    sandbox.preparing.add(preparing);
    try {
      await preparing;
    } finally {
      sandbox.preparing.delete(preparing);
    }
    // Delete or pause may have come while files were written: check again, then spawn at once.
    runnable(sandboxId, sandbox);
    if (input.signal?.aborted) {
      yield cancelledExit();
      return;
    }

    const run = new ExecRun({
      command: input.command,
      cwd: sandbox.workingDir,
      env: { ...sandbox.env, ...input.env },
      timeoutMs: settings.timeoutMs,
      maxOutputBytes: settings.maxOutputBytes,
      signal: input.signal,
      stdin: input.stdin,
    });
    const pgid = run.pgid;
    if (pgid === undefined) throw await run.spawnFailure();
    sandbox.groups.add(pgid); // tracked (and with the lifeline) since the spawn
    sandbox.runs.add(run);

    let complete = false;
    try {
      for (let event = await run.next(); event !== undefined; event = await run.next()) {
        if (event.type === 'exit') complete = true;
        yield event;
      }
    } finally {
      if (!complete) {
        // The consumer left early: nothing of this command may keep running.
        run.kill();
        await run.finished;
      }
      sandbox.runs.delete(run);
      await forgetIfDead(sandbox, pgid);
    }
  }

  function remove(sandbox: SandboxState): Promise<void> {
    sandboxes.delete(sandbox.id);
    const removal = removeNow(sandbox);
    removals.add(removal);
    void removal.finally(() => removals.delete(removal)).catch(() => undefined);
    return removal;
  }

  async function removeNow(sandbox: SandboxState): Promise<void> {
    for (const pgid of sandbox.groups) signalGroup(pgid, 'SIGKILL');
    await Promise.allSettled([...sandbox.preparing]);
    await Promise.all([...sandbox.runs].map((run) => run.finished));
    await Promise.all(
      [...sandbox.groups].map(async (pgid) => {
        await waitGroupGone(pgid, KILL_WAIT_MS);
        untrackGroup(pgid);
      }),
    );
    sandbox.groups.clear();
    await removeTree(sandbox.dir);
    if (sandbox.bound) unbindTree(sandbox.dir);
  }

  return {
    name: RUNTIME_NAME,
    takesOwnerCredential: false,

    async listSpecs() {
      return structuredClone(specs);
    },

    async start(input: StartSandboxInput) {
      if (closed) throw new PlatformError('UNAVAILABLE', 'The process runtime is closed');
      const { sandboxId, specId } = input;
      if (typeof sandboxId !== 'string' || !SANDBOX_ID_PATTERN.test(sandboxId)) {
        throw validationError(['sandboxId'], 'Sandbox id must be 1-200 characters of letters, digits, "_", "." and "-", starting with a letter or digit');
      }
      const spec = specs.find((candidate) => candidate.id === specId);
      if (!spec) throw notFound(`Sandbox spec ${JSON.stringify(specId)}`);
      if (input.image !== undefined) throw noImages(input.image);
      if (sandboxes.has(sandboxId) || starting.has(sandboxId)) {
        throw new PlatformError('CONFLICT', `Sandbox ${JSON.stringify(sandboxId)} already exists`);
      }
      const startEnv = checkEnv(input.env, ['env']);
      const bound = input.boundToProcess ?? false;
      if (typeof bound !== 'boolean') throw validationError(['boundToProcess'], 'boundToProcess must be a boolean');
      if (!holding) {
        holding = true;
        holdLifeline();
      }

      const done = (async () => {
        const dir = join(await ensureRoot(), sandboxId);
        if (bound) ensureLifeline(); // INTERNAL before anything is made, when it cannot start
        try {
          await mkdir(dir, { mode: 0o700 });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          throw new PlatformError('CONFLICT', `Sandbox directory ${dir} already exists`);
        }
        if (bound) bindTree(dir);
        const workingDir = join(dir, WORKSPACE_DIR);
        await mkdir(workingDir);
        const sandbox: SandboxState = {
          id: sandboxId,
          specId,
          dir,
          workingDir,
          env: { HOME: dir, ...spec.initial_env, ...startEnv },
          status: 'RUNNING',
          bound,
          groups: new Set(),
          runs: new Set(),
          preparing: new Set(),
          operations: Promise.resolve(),
        };
        sandboxes.set(sandboxId, sandbox);
        return sandbox;
      })();
      starting.set(sandboxId, { specId, done });
      try {
        return view(await done);
      } finally {
        starting.delete(sandboxId);
      }
    },

    async inspect(sandboxId: string) {
      const sandbox = sandboxes.get(sandboxId);
      if (sandbox) return view(sandbox);
      const pending = starting.get(sandboxId);
      if (pending) {
        return { id: sandboxId, specId: pending.specId, status: 'STARTING', workingDir: '', exposedUrls: [] };
      }
      return missing(sandboxId);
    },

    pause(sandboxId: string) {
      return operate(sandboxId, async (sandbox) => {
        if (sandbox.status === 'PAUSED') return;
        await pruneGroups(sandbox);
        // Synchronous from here: no command can start between the status change and the signals.
        sandbox.status = 'PAUSED';
        for (const pgid of sandbox.groups) signalGroup(pgid, 'SIGSTOP');
      });
    },

    resume(sandboxId: string) {
      return operate(sandboxId, async (sandbox) => {
        if (sandbox.status === 'RUNNING') return;
        await pruneGroups(sandbox);
        for (const pgid of sandbox.groups) signalGroup(pgid, 'SIGCONT');
        sandbox.status = 'RUNNING';
      });
    },

    delete(sandboxId: string) {
      return operate(sandboxId, remove);
    },

    exec(sandboxId: string, input: ExecInput) {
      return execute(sandboxId, input);
    },

    /** Nothing to reach: ready until closed. */
    async ping() {
      if (closed) throw new PlatformError('UNAVAILABLE', 'The process runtime is closed');
    },

    close() {
      closing ??= (async () => {
        closed = true;
        await Promise.allSettled([...starting.values()].map((pending) => pending.done));
        await Promise.all([...sandboxes.values()].map(remove));
        await Promise.allSettled([...removals]);
        if (createdRoot !== undefined) {
          await removeTree(createdRoot);
          unbindEmptyDir(createdRoot);
        }
        if (holding) releaseLifeline();
      })();
      return closing;
    },
  };
}

/** The refusal of a start that asks for a container image: a sandbox here is a directory, not a container. */
function noImages(image: string): PlatformError {
  const shown = typeof image === 'string' ? JSON.stringify(image.slice(0, 64)) : 'an image';
  return validationError(
    ['image'],
    `The process runtime runs no container images: it cannot start a sandbox from ${shown}; the allowed images are: none`,
    'enum',
  );
}

function view(sandbox: SandboxState): RuntimeSandbox {
  return {
    id: sandbox.id,
    specId: sandbox.specId,
    status: sandbox.status satisfies SandboxStatus,
    workingDir: sandbox.workingDir,
    exposedUrls: [],
  };
}

function missing(sandboxId: string): RuntimeSandbox {
  return { id: sandboxId, specId: '', status: 'MISSING', workingDir: '', exposedUrls: [] };
}

function cancelledExit(): ExecEvent {
  return { type: 'exit', result: { exitCode: null, timedOut: false, cancelled: true, truncated: false } };
}

function defaultSpec(): SandboxSpec {
  return {
    id: DEFAULT_SPEC_ID,
    command: null,
    created_at: new Date().toISOString(),
    initial_env: { PATH: DEFAULT_PATH },
    working_dir: '/workspace',
  };
}
