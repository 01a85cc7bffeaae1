/**
 * An MCP `Transport` to a stdio server running inside a sandbox, through `SandboxRuntime.exec`.
 * @module
 */
import type { ExecResult, SandboxRuntime } from '@agent-platform/core';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The part of the server's stderr kept for error messages. */
const STDERR_TAIL_CHARS = 4_096;
/** A stdout line longer than this (no newline yet) is dropped: a server gone wrong must not fill memory. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/**
 * The server lives as long as the agent needs it, not as long as a command may: the exec gets
 * the longest timeout a Node timer can hold (about 24.8 days) instead of the runtime's default...
 */
const SERVER_TIMEOUT_MS = 2 ** 31 - 1;
/** ...and its output is not cut off by the runtime's per-command output limit. */
const SERVER_MAX_OUTPUT_BYTES = Number.MAX_SAFE_INTEGER;
/** How long `close()` waits for the exec to end after aborting it. */
const CLOSE_WAIT_MS = 5_000;

export interface SandboxStdioServer {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
}

/**
 * Runs `command args…` in the sandbox with `exec` and speaks newline-delimited JSON-RPC over its
 * stdin and stdout (the MCP stdio transport). Lines of stdout that are not JSON are ignored
 * (servers that log to stdout); stderr is kept as a bounded tail for {@link failure}. Closing
 * aborts the exec, which kills the server.
 */
export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private readonly abort = new AbortController();
  private readonly stdin = new PushIterable<string>();
  private started = false;
  private closed = false;
  private closeReported = false;
  private pump: Promise<void> | undefined;
  private pendingLine = '';
  private stderrTail = '';
  private exitResult: ExecResult | undefined;
  private execError: unknown;

  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly sandboxId: string,
    private readonly server: SandboxStdioServer,
  ) {}

  /** The shell command line run in the sandbox. */
  get commandLine(): string {
    return ['exec', ...[this.server.command, ...this.server.args].map(shellQuote)].join(' ');
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('SandboxStdioTransport already started');
    if (this.closed) throw new Error('SandboxStdioTransport is closed');
    this.started = true;
    this.pump = this.run();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.started || this.closed) throw new Error('Not connected');
    this.stdin.push(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.stdin.end();
      this.abort.abort();
    }
    if (this.pump) await withTimeout(this.pump, CLOSE_WAIT_MS);
    this.finish();
  }

  /**
   * Why the server is gone, once it is: how the exec ended (or failed to start) and the tail of
   * its stderr. Undefined while it runs or after a `close()` it did not end on its own before.
   */
  failure(): string | undefined {
    let reason: string | undefined;
    if (this.execError !== undefined) {
      reason = `could not run the server: ${errorMessage(this.execError)}`;
    } else if (this.exitResult !== undefined && !this.exitResult.cancelled) {
      const result = this.exitResult;
      reason = result.timedOut ? 'the server timed out' : result.exitCode === null ? 'the server was killed' : `the server exited with code ${result.exitCode}`;
    }
    return reason === undefined ? undefined : this.withStderr(reason);
  }

  /** `reason`, followed by the tail of the server's stderr when it wrote any. */
  withStderr(reason: string): string {
    const stderr = this.stderrTail.trim();
    return stderr === '' ? reason : `${reason}; stderr: ${stderr}`;
  }

  private async run(): Promise<void> {
    try {
      const events = this.runtime.exec(this.sandboxId, {
        command: this.commandLine,
        env: this.server.env,
        stdin: this.stdin,
        signal: this.abort.signal,
        timeoutMs: SERVER_TIMEOUT_MS,
        maxOutputBytes: SERVER_MAX_OUTPUT_BYTES,
      });
      for await (const event of events) {
        if (event.type === 'stdout') this.stdout(event.data);
        else if (event.type === 'stderr') this.stderrTail = (this.stderrTail + event.data).slice(-STDERR_TAIL_CHARS);
        else this.exitResult = event.result;
      }
      if (this.pendingLine !== '') this.line(this.pendingLine);
      this.pendingLine = '';
    } catch (error) {
      this.execError = error;
      if (!this.closed) this.onerror?.(new Error(`MCP stdio server: ${errorMessage(error)}`));
    } finally {
      this.stdin.end();
      this.finish();
    }
  }

  private stdout(data: string): void {
    const parts = (this.pendingLine + data).split('\n');
    this.pendingLine = parts.pop() ?? '';
    if (this.pendingLine.length > MAX_LINE_CHARS) {
      this.pendingLine = '';
      this.onerror?.(new Error(`MCP stdio server wrote a line longer than ${MAX_LINE_CHARS} characters; dropped`));
    }
    for (const part of parts) this.line(part);
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || this.closed) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return; // Not JSON: a server logging to stdout.
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.onerror?.(new Error('MCP stdio server wrote JSON that is not a JSON-RPC message; ignored'));
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** The transport is closed, by `close()` or because the exec ended: `onclose` once. */
  private finish(): void {
    this.closed = true;
    if (this.closeReported) return;
    this.closeReported = true;
    this.onclose?.();
  }
}

/**
 * An async iterable fed by `push`, ended by `end`: the stdin of the exec. Iterated once. A
 * `return()` from the consumer (the command exited) ends it too.
 */
class PushIterable<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.signal();
  }

  end(): void {
    this.ended = true;
    this.items.length = 0;
    this.signal();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: async () => {
        while (this.items.length === 0 && !this.ended) {
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
        }
        if (this.items.length > 0) return { done: false, value: this.items.shift() as T };
        return { done: true, value: undefined };
      },
      return: async () => {
        this.end();
        return { done: true, value: undefined };
      },
    };
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** Quotes a word for `sh` (single quotes) unless it is made only of characters that need none. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_\-./:=@%+,]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
