/**
 * One command of the Docker runtime: a `docker exec` of `sh -c`, its multiplexed output as
 * events, and the kill that timeouts, aborts and early consumers need — which the Engine API does
 * not have, so the command records its process group in the container and a second exec kills it.
 * @module
 */
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import type { ExecEvent, ExecResult } from '@agent-platform/core';
import { BoundedDecoder, ExecEventQueue, StdinFeed, type StdinInput } from '@agent-platform/core/adapter-kit';
import { isConflict, isNotFound } from './docker-errors.js';
import { StreamDemuxer } from './demux.js';

/**
 * Runs as the exec's process: `docker exec` makes it a session (and process group) leader, so it
 * writes its pid where a kill can find it, runs the command in a child shell (same group) and
 * removes the file after. `$1` is the pid file, `$2` the command, `$3` the pid file used when
 * `$1` cannot be written (a command filled `/tmp`).
 */
const WRAPPER = '{ echo $$ > "$1"; } 2>/dev/null || { echo $$ > "$3"; } 2>/dev/null; sh -c "$2"; status=$?; rm -f "$1" "$3" 2>/dev/null; exit $status';
/** SIGKILLs the group whose leader's pid either file (`$1`, else `$2`) holds. */
const KILLER = '{ read pid < "$1" || read pid < "$2"; } 2>/dev/null && kill -9 -"$pid"';
/** How often a running exec is checked for having exited while something still holds its output. */
const EXIT_POLL_MS = 500;
/** After the command has exited, how long output may still come before the stream is closed. */
const DRAIN_MS = 500;
/** How long a kill waits for the command to have written its pid file. */
const KILL_RETRY_MS = 2_000;
/**
 * Once output passes its bound, the rest is read (and dropped) at most this fast: a flood then
 * waits on its full pipe instead of costing CPU here, in the engine and in the sandbox.
 */
export const DISCARD_BYTES_PER_SECOND = 16 * 1024 * 1024;
const THROTTLE_WINDOW_MS = 100;

/** The container of a sandbox that stopped under a command (its runtime's exit code). */
export interface StoppedSandbox {
  exitCode: number;
  oomKilled: boolean;
}

export interface DockerExecOptions {
  container: Dockerode.Container;
  execId: string;
  command: string;
  env: Record<string, string>;
  workingDir: string;
  timeoutMs: number | undefined;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
  /**
   * Given: stdin is attached and written to the hijacked connection, whose write side is then
   * half-closed (the command sees end of file). Absent: stdin is not attached (empty).
   */
  stdin: StdinInput | undefined;
  /** Called when the kill could not run now (the container is paused): run it after resume. */
  deferKill(kill: () => Promise<void>): void;
  /**
   * For a command that exited non-zero by itself: a note on a sandbox limit it ran into
   * (`limitNote`), added to the end of its stderr; `stopped` when the whole sandbox stopped under
   * it. Absent: none.
   */
  explain?: (exitCode: number, stopped?: StoppedSandbox) => Promise<string | null>;
}

export class DockerExec {
  private readonly stdout: BoundedDecoder;
  private readonly stderr: BoundedDecoder;
  private readonly queue = new ExecEventQueue();
  private done = false;
  private stream: Duplex | undefined;
  private exec: Dockerode.Exec | undefined;
  private stdinFeed: StdinFeed | undefined;
  private timedOut = false;
  private cancelled = false;
  private killed = false;
  /** Whether the last stderr chunk let out ended a line (a note then needs no newline first). */
  private stderrAtLineStart = true;
  private timers: NodeJS.Timeout[] = [];
  private windowStart = 0;
  private windowBytes = 0;
  private throttleTimer: NodeJS.Timeout | undefined;
  private readonly pidFile: string;
  /** Where the pid goes when `/tmp` is full (a command filled it): `/dev/shm`, a tmpfs of its own. */
  private readonly fallbackPidFile: string;
  private readonly onAbort = (): void => void this.stop('cancelled');

  constructor(private readonly options: DockerExecOptions) {
    this.stdout = new BoundedDecoder(options.maxOutputBytes);
    this.stderr = new BoundedDecoder(options.maxOutputBytes);
    this.pidFile = `/tmp/.agent-platform-exec-${options.execId}`;
    this.fallbackPidFile = `/dev/shm/.agent-platform-exec-${options.execId}`;
  }

  /** Creates and starts the exec; Engine errors (404, 409) surface from here. */
  async start(): Promise<void> {
    const options = this.options;
    const container = options.container;
    this.exec = await container.exec({
      Cmd: ['/bin/sh', '-c', WRAPPER, 'sh', this.pidFile, options.command, this.fallbackPidFile],
      Env: Object.entries(options.env).map(([name, value]) => `${name}=${value}`),
      WorkingDir: options.workingDir,
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: options.stdin !== undefined,
      Tty: false,
    });
    const stream = (await this.exec.start({ hijack: true, stdin: options.stdin !== undefined })) as Duplex;
    this.stream = stream;
    const demuxer = new StreamDemuxer((type, payload) => this.output(type, (type === 'stdout' ? this.stdout : this.stderr).write(payload)));
    stream.on('data', (chunk: Buffer) => {
      demuxer.write(chunk);
      if (this.stdout.truncated || this.stderr.truncated) this.throttle(chunk.length);
    });
    stream.on('end', () => void this.finish());
    stream.on('close', () => void this.finish());
    stream.on('error', () => void this.finish());
    // Not multiplexed: what is written is the command's stdin; `end()` half-closes the connection.
    if (options.stdin !== undefined) this.stdinFeed = new StdinFeed(stream, options.stdin);

    if (options.timeoutMs !== undefined) this.timer(options.timeoutMs, () => void this.stop('timedOut'));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.pollExit();
  }

  /** The next event, or undefined after the `exit` event was taken. */
  next(): Promise<ExecEvent | undefined> {
    return this.queue.next();
  }

  get finished(): boolean {
    return this.done;
  }

  /**
   * Kills the command and everything in its group, and ends the stream (exit code null). Never
   * throws: when the kill cannot run (the sandbox is gone, or so full it cannot start the
   * killer), the stream ends anyway and what is left goes with the sandbox.
   */
  async kill(): Promise<void> {
    if (this.done) return;
    this.killed = true;
    const kill = () => this.runKiller();
    await kill().catch((error: unknown) => {
      // Paused: signals would wait for the thaw anyway, but exec is refused until then.
      if (isConflict(error)) this.options.deferKill(kill);
    });
    this.stream?.destroy();
  }

  /** Ends the stream without killing anything: the sandbox is gone. */
  abandon(): void {
    this.killed = true;
    this.stream?.destroy();
  }

  private async stop(reason: 'timedOut' | 'cancelled'): Promise<void> {
    if (this.done || this.timedOut || this.cancelled) return;
    this[reason] = true;
    await this.kill();
  }

  private async runKiller(): Promise<void> {
    const deadline = Date.now() + KILL_RETRY_MS;
    for (;;) {
      let exitCode: number | null = null;
      try {
        exitCode = await this.killOnce();
      } catch (error) {
        // Paused (409): deferred by kill(); gone (404): nothing to kill. Anything else (at its
        // pids limit the sandbox may not start the killer): try again until the deadline.
        if (isConflict(error) || isNotFound(error) || Date.now() > deadline) throw error;
      }
      // Non-zero: no pid file yet (the command has not started) or the group is already gone.
      if (exitCode === 0 || Date.now() > deadline || this.done) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async killOnce(): Promise<number | null> {
    const killer = await this.options.container.exec({
      Cmd: ['/bin/sh', '-c', KILLER, 'sh', this.pidFile, this.fallbackPidFile],
      AttachStdout: false,
      AttachStderr: false,
    });
    const stream = (await killer.start({ hijack: true, stdin: false })) as Duplex;
    await new Promise<void>((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
      stream.resume();
    });
    return (await killer.inspect()).ExitCode;
  }

  /**
   * A command can exit while a background process it started still holds its output open, and
   * then the stream would not end; check now and then, and close it shortly after the exit.
   */
  private pollExit(): void {
    this.timer(EXIT_POLL_MS, async () => {
      if (this.done || !this.exec) return;
      // The container first: the engine's answer about an exec in a stopped gVisor sandbox can hang.
      if (await this.containerStopped()) {
        this.stream?.destroy();
        return;
      }
      const state = await this.exec.inspect().catch(() => null);
      if (state && !state.Running) this.timer(DRAIN_MS, () => void this.stream?.destroy());
      else this.pollExit();
    });
  }

  /**
   * Whether the container stopped under a command the engine still counts as running: gVisor
   * (runsc) ends its whole sandbox at a memory or process limit, and the engine's exec of it
   * never ends by itself then.
   */
  private async containerStopped(): Promise<boolean> {
    const info = await this.options.container.inspect().catch(() => null);
    if (!info || info.State.Running) return false;
    this.stopped = { exitCode: info.State.ExitCode, oomKilled: info.State.OOMKilled };
    return true;
  }

  /** Pauses reading for the rest of the window once the window's share of the discard rate is read. */
  private throttle(bytes: number): void {
    const now = performance.now();
    if (now - this.windowStart >= THROTTLE_WINDOW_MS) {
      this.windowStart = now;
      this.windowBytes = 0;
    }
    this.windowBytes += bytes;
    if (this.throttleTimer || this.windowBytes < (DISCARD_BYTES_PER_SECOND * THROTTLE_WINDOW_MS) / 1000) return;
    this.stream?.pause();
    this.throttleTimer = setTimeout(
      () => {
        this.throttleTimer = undefined;
        this.stream?.resume();
      },
      THROTTLE_WINDOW_MS - (now - this.windowStart),
    );
    this.throttleTimer.unref();
  }

  private timer(ms: number, run: () => void | Promise<void>): void {
    const handle = setTimeout(() => void run(), ms);
    handle.unref();
    this.timers.push(handle);
  }

  private output(type: 'stdout' | 'stderr', data: string): void {
    if (data === '') return;
    if (type === 'stderr') this.stderrAtLineStart = data.endsWith('\n');
    this.push({ type, data });
  }

  private push(event: ExecEvent): void {
    this.queue.push(event);
  }

  private finishing = false;
  private stopped: StoppedSandbox | null = null;

  private async finish(): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    this.stdinFeed?.stop();
    for (const handle of this.timers) clearTimeout(handle);
    clearTimeout(this.throttleTimer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    let exitCode: number | null = null;
    if (this.stopped) {
      // Killed with its sandbox; the exec's state is not asked (see pollExit).
      exitCode = 137;
    } else if (!this.killed) {
      const state = await this.exec?.inspect().catch(() => null);
      // The sandbox removed under it, or the engine lost it: no exit code to report.
      exitCode = state && !state.Running && typeof state.ExitCode === 'number' ? state.ExitCode : null;
      // Killed with its sandbox, whose engine ended the exec with its own error.
      if (exitCode !== 0 && (await this.containerStopped())) exitCode = 137;
    }
    const out = this.stdout.end();
    if (out !== '') this.push({ type: 'stdout', data: out });
    this.output('stderr', this.stderr.end());
    if (exitCode !== null && exitCode !== 0 && !this.killed && this.options.explain) {
      const note = await this.options.explain(exitCode, this.stopped ?? undefined).catch(() => null);
      // Past the output bound too: it is short, and it says why the command failed.
      if (note) this.push({ type: 'stderr', data: this.stderrAtLineStart ? note : `\n${note}` });
    }
    const result: ExecResult = {
      exitCode: this.timedOut || this.cancelled ? null : exitCode,
      timedOut: this.timedOut,
      cancelled: this.cancelled,
      truncated: this.stdout.truncated || this.stderr.truncated,
    };
    this.push({ type: 'exit', result });
    this.done = true;
    this.queue.close();
  }
}
