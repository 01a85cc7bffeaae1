/**
 * One command of the process runtime: a `sh -c` child in its own process group, its standard
 * input fed, its output as events, and the timeout and abort that kill it.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { PlatformError } from '@agent-platform/core';
import type { ExecEvent, ExecResult } from '@agent-platform/core';
import { BoundedDecoder, ExecEventQueue, StdinFeed, type StdinInput } from '@agent-platform/core/adapter-kit';
import { afterLifeline, ensureLifeline } from './lifeline.js';
import { signalGroup, trackGroup } from './process-groups.js';

/** The shell every command runs under. An absolute path: the command's `PATH` is not ours to trust. */
export const SHELL = '/bin/sh';

/**
 * Put before the command, on its first line (so the shell's line numbers stay the command's):
 * the shell waits for a line on fd 3, the gate, which is written once the command's group is
 * with the lifeline; then it closes fd 3, so nothing the command starts holds it. End of file
 * instead (this process died first) exits without running the command.
 */
export const GATE = 'read _ <&3 || exit; exec 3<&-; ';

/**
 * After the command's shell exits, background processes it left in its group may still hold its
 * stdout or stderr open. Output keeps being read until the streams are quiet for this long...
 */
const DRAIN_QUIET_MS = 100;
/** ...but no longer than this after the exit; then the streams are closed on them. */
const DRAIN_MAX_MS = 2_000;

export interface ExecRunOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number | undefined;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
  /** Absent: the command's stdin is `/dev/null` (empty). */
  stdin: StdinInput | undefined;
}

export class ExecRun {
  /** The process group (the shell's pid); undefined when the spawn failed. */
  readonly pgid: number | undefined;
  /** Resolves once the `exit` event is queued: the shell has exited and its output is read. */
  readonly finished: Promise<void>;

  private readonly child: ChildProcess;
  private readonly stdout: BoundedDecoder;
  private readonly stderr: BoundedDecoder;
  private stdinFeed: StdinFeed | undefined;
  private readonly queue = new ExecEventQueue();
  private done = false;
  private resolveFinished!: () => void;
  private spawnError: Error | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private timedOut = false;
  private cancelled = false;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private outputSinceCheck = false;
  private readonly onAbort = (): void => this.stop('cancelled');

  /** Spawns the command synchronously, so the caller can register its group before anything else runs. */
  constructor(private readonly options: ExecRunOptions) {
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
    this.stdout = new BoundedDecoder(options.maxOutputBytes);
    this.stderr = new BoundedDecoder(options.maxOutputBytes);
    ensureLifeline(); // nothing runs without it
    this.child = spawn(SHELL, ['-c', GATE + options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'],
    });
    this.pgid = this.child.pid;
    this.child.on('error', (error) => {
      // Only a failed spawn matters here; a failed kill of a gone process is harmless.
      if (this.pgid === undefined) {
        this.spawnError = error;
        this.finish();
      }
    });
    if (this.pgid === undefined) return;
    this.openGate(this.pgid);

    // Spawned with piped stdout and stderr, and a piped stdin when there is input to feed it.
    const { stdin, stdout, stderr } = this.child;
    if (stdout === null || stderr === null) throw new Error('the command was spawned without its stdout or stderr pipe');
    stdout.on('data', (chunk: Buffer) => this.output('stdout', this.stdout.write(chunk)));
    stderr.on('data', (chunk: Buffer) => this.output('stderr', this.stderr.write(chunk)));
    if (options.stdin !== undefined) {
      if (stdin === null) throw new Error('the command was spawned without its stdin pipe');
      this.stdinFeed = new StdinFeed(stdin, options.stdin);
    }
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.clearTimeout();
      this.closeStdin();
      this.armDrain(Date.now());
    });
    this.child.on('close', () => this.finish());

    if (options.timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => this.stop('timedOut'), options.timeoutMs);
      this.timeoutTimer.unref();
    }
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Resolves once the spawn has failed (`PlatformError` INTERNAL) or started; only call when `pgid` is undefined. */
  async spawnFailure(): Promise<PlatformError> {
    await this.finished;
    return new PlatformError('INTERNAL', `Could not start ${SHELL}: ${this.spawnError?.message ?? 'unknown error'}`, {
      cause: this.spawnError,
    });
  }

  /** The next event, or undefined after the `exit` event was taken. */
  next(): Promise<ExecEvent | undefined> {
    return this.queue.next();
  }

  /**
   * Hands the group to the lifeline, then lets the command run (at once, unless the lifeline's
   * pipe is full). Without a lifeline the gate is closed and the command exits unrun.
   */
  private openGate(pgid: number): void {
    const gate = this.child.stdio[3] as Duplex | null | undefined;
    if (!gate) throw new Error('the command was spawned without its gate pipe');
    gate.on('error', () => undefined); // the shell may be gone (killed) before it reads
    trackGroup(pgid);
    afterLifeline((held) => {
      if (held) gate.end('\n');
      else gate.destroy();
    });
  }

  /** SIGKILLs the whole group (the command and everything it left in the group). */
  kill(): void {
    if (this.pgid !== undefined) signalGroup(this.pgid, 'SIGKILL');
  }

  private stop(reason: 'timedOut' | 'cancelled'): void {
    if (this.exit || this.done || this.timedOut || this.cancelled) return;
    this[reason] = true;
    this.kill();
  }

  private output(type: 'stdout' | 'stderr', data: string): void {
    this.outputSinceCheck = true;
    if (data !== '') this.push({ type, data });
  }

  private push(event: ExecEvent): void {
    this.queue.push(event);
  }

  /**
   * The shell has exited; `close` follows once every holder of its stdout and stderr is gone.
   * When background processes keep them open, stop reading after a quiet spell or at the
   * latest after {@link DRAIN_MAX_MS}. The check runs in `setImmediate`, after an I/O poll, so
   * output already waiting in the pipes is read first even when the event loop was busy.
   */
  private armDrain(exitedAt: number): void {
    this.outputSinceCheck = false;
    this.drainTimer = setTimeout(() => {
      setImmediate(() => {
        if (this.done) return;
        if (this.outputSinceCheck && Date.now() - exitedAt < DRAIN_MAX_MS) {
          this.armDrain(exitedAt);
          return;
        }
        this.child.stdout?.destroy();
        this.child.stderr?.destroy();
      });
    }, DRAIN_QUIET_MS);
    this.drainTimer.unref();
  }

  /** The shell is gone (or never started): no more input; the iterable, if any, is closed. */
  private closeStdin(): void {
    this.stdinFeed?.stop();
    this.child.stdin?.destroy();
  }

  private clearTimeout(): void {
    if (this.timeoutTimer !== undefined) clearTimeout(this.timeoutTimer);
    this.timeoutTimer = undefined;
  }

  private finish(): void {
    if (this.done) return;
    this.clearTimeout();
    this.closeStdin();
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    if (this.pgid !== undefined) {
      const out = this.stdout.end();
      if (out !== '') this.push({ type: 'stdout', data: out });
      const err = this.stderr.end();
      if (err !== '') this.push({ type: 'stderr', data: err });
      const killed = this.timedOut || this.cancelled || this.exit?.signal != null;
      const result: ExecResult = {
        exitCode: killed ? null : (this.exit?.code ?? null),
        timedOut: this.timedOut,
        cancelled: this.cancelled,
        truncated: this.stdout.truncated || this.stderr.truncated,
      };
      this.push({ type: 'exit', result });
    }
    this.done = true;
    this.queue.close();
    this.resolveFinished();
  }
}
