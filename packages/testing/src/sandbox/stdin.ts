/**
 * Conformance: a command's standard input — strings and bytes written whole, async iterables
 * streamed as they yield, end of file, and the iterable closed when the command ends first.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ExecEvent, ExecInput } from '@agent-platform/core';
import type { SuiteContext } from './context.js';
import { PROMPT_END_MS, execAll, execOk, expectWellFormed, waitFor, within } from './helpers.js';
import type { ExecOutcome } from './helpers.js';

/** Writes its input to a file, then prints its size in bytes and its MD5, one a line. */
const MEASURE_INPUT = 'cat > stdin.bin && wc -c < stdin.bin && md5sum < stdin.bin';
/** Prints its input as hexadecimal bytes. */
const HEX_INPUT = 'od -An -tx1 -v';

/** Runs a command to the end, which must come within {@link PROMPT_END_MS}; `what` names it. */
function ended(ctx: SuiteContext, sandboxId: string, what: string, input: ExecInput): Promise<ExecOutcome> {
  return within(PROMPT_END_MS, what, execAll(ctx.runtime, sandboxId, input));
}

/** {@link ended}, for a command that must succeed; its stdout. */
function endedOk(ctx: SuiteContext, sandboxId: string, what: string, input: ExecInput): Promise<string> {
  return within(PROMPT_END_MS, what, execOk(ctx.runtime, sandboxId, input));
}

/** Text of at least `bytes` UTF-8 bytes, with 1- to 4-byte characters throughout. */
function multiByteText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const line = `${index}: ascii, é (2), € (3), 𝄞 (4) "quoted" $HOME \\n\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return lines.join('');
}

/** The words of `od` output, e.g. `['00', 'ff']`. */
function hexWords(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}

function hexOf(bytes: Uint8Array): string[] {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0'));
}

/** The size and MD5 in what {@link MEASURE_INPUT} printed. */
function measured(stdout: string): { size: number; md5: string } {
  const [size, sum] = stdout.trim().split('\n');
  return { size: Number(size?.trim()), md5: sum?.trim().split(/\s+/)[0] ?? '' };
}

/** The size and MD5 of `bytes`, to compare with {@link measured}. */
function measure(bytes: Uint8Array): { size: number; md5: string } {
  return { size: bytes.length, md5: createHash('md5').update(bytes).digest('hex') };
}

/**
 * An endless input that records whether it was closed: `yield`s `chunk` forever, `pauseMs`
 * apart (0: as fast as it is taken, though letting timers run in between, so that a runtime
 * taking it all without end fails its time bound instead of hanging the suite).
 */
function endlessInput(chunk: string | Uint8Array, pauseMs: number): { input: AsyncIterable<string | Uint8Array>; state: { closed: boolean } } {
  const state = { closed: false };
  async function* generate(): AsyncGenerator<string | Uint8Array> {
    try {
      for (;;) {
        yield chunk;
        await (pauseMs > 0 ? sleep(pauseMs) : new Promise((resolve) => setImmediate(resolve)));
      }
    } finally {
      state.closed = true;
    }
  }
  return { input: generate(), state };
}

export function describeStdin(ctx: SuiteContext): void {
  describe('exec stdin', () => {
    it('without stdin, the input is empty: cat ends at once with no output', async () => {
      const { id } = await ctx.start();
      const outcome = await ended(ctx, id, 'cat without stdin', { command: 'cat' });
      expect(outcome.result).toEqual({ exitCode: 0, timedOut: false, cancelled: false, truncated: false });
      expect(outcome.stdout).toBe('');
      expect(await execOk(ctx.runtime, id, 'wc -c | tr -d " "')).toBe('0\n');
    });

    it('an empty string or an empty iterable is an empty input', async () => {
      const { id } = await ctx.start();
      const empty = await ended(ctx, id, 'cat of an empty string', { command: 'cat', stdin: '' });
      expect(empty.result.exitCode).toBe(0);
      expect(empty.stdout).toBe('');
      async function* nothing(): AsyncGenerator<string> {}
      const none = await ended(ctx, id, 'cat of an empty iterable', { command: 'cat', stdin: nothing() });
      expect(none.result.exitCode).toBe(0);
      expect(none.stdout).toBe('');
    });

    it('a string is written whole, then end of file: cat echoes it exactly', async () => {
      const { id } = await ctx.start();
      const small = 'héllo wörld € 𝄞 "quotes" \'single\' $HOME `tick`\n\tsecond line, no newline at the end';
      const echoed = await ended(ctx, id, 'cat of a string', { command: 'cat', stdin: small });
      expect(echoed.result).toEqual({ exitCode: 0, timedOut: false, cancelled: false, truncated: false });
      expect(echoed.stdout).toBe(small);

      // Far beyond a pipe's buffer, so the writer must wait for the reader.
      const large = multiByteText(200 * 1024);
      const big = await ended(ctx, id, 'cat of 200 KB', { command: 'cat', stdin: large });
      expect(big.result.exitCode).toBe(0);
      expect(big.stdout.length).toBe(large.length);
      expect(big.stdout === large, 'the 200 KB text came back unchanged').toBe(true);
      const stats = await endedOk(ctx, id, 'measuring 200 KB of text', { command: MEASURE_INPUT, stdin: large });
      expect(measured(stats)).toEqual(measure(Buffer.from(large)));
    });

    it('bytes reach the command exactly, invalid UTF-8 included', async () => {
      const { id } = await ctx.start();
      // Every byte value, then sequences that are not UTF-8: a lone continuation byte, a truncated
      // sequence, an overlong encoding, a surrogate.
      const everyByte = Array.from({ length: 256 }, (_, byte) => byte);
      const odd = new Uint8Array([...everyByte, 0x80, 0xc3, 0x28, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff]);
      const hex = await endedOk(ctx, id, 'od of bytes', { command: HEX_INPUT, stdin: odd });
      expect(hexWords(hex)).toEqual(hexOf(odd));

      // A view into a larger buffer: only its own bytes are the input.
      const backing = randomBytes(200 * 1024 + 20);
      const view = new Uint8Array(backing.buffer, backing.byteOffset + 7, 200 * 1024);
      const stats = await endedOk(ctx, id, 'measuring 200 KB of bytes', { command: MEASURE_INPUT, stdin: view });
      expect(measured(stats)).toEqual(measure(view));
    });

    it('an async iterable of strings and bytes arrives whole, whatever the chunk boundaries', async () => {
      const { id } = await ctx.start();
      const text = multiByteText(50 * 1024);
      const bytes = Buffer.from(text);
      async function* pieces(): AsyncGenerator<string | Uint8Array> {
        yield 'head: €\n';
        yield new Uint8Array(0);
        yield '';
        // Cut anywhere, characters too: 1, 2, 3... bytes, then 997.
        let offset = 0;
        for (let size = 1; offset < bytes.length; size = size < 40 ? size + 1 : 997) {
          yield new Uint8Array(bytes.subarray(offset, offset + size));
          offset += size;
          if (size < 10) await sleep(1);
        }
        yield 'tail 𝄞';
      }
      const outcome = await ended(ctx, id, 'cat of an iterable', { command: 'cat', stdin: pieces() });
      expect(outcome.result.exitCode).toBe(0);
      expect(outcome.stdout === `head: €\n${text}tail 𝄞`, 'the iterable came back unchanged').toBe(true);
    });

    it('an async iterable is streamed as it yields, and its end is the end of file', async () => {
      const { id } = await ctx.start();
      const log: string[] = [];
      let stdout = '';
      async function* lines(): AsyncGenerator<string | Uint8Array> {
        for (const line of [1, 2, 3]) {
          log.push(`yield ${line}`);
          yield line === 2 ? new TextEncoder().encode(`line ${line}\n`) : `line ${line}\n`;
          // The next line is produced only once the command has answered this one.
          await waitFor(PROMPT_END_MS, `the answer to line ${line}`, () => stdout.includes(`got line ${line}\n`));
        }
      }
      const events: ExecEvent[] = [];
      const command = 'while read -r line; do echo "got $line"; done; echo eof';
      const consume = async (): Promise<void> => {
        for await (const event of ctx.runtime.exec(id, { command, stdin: lines() })) {
          events.push(event);
          if (event.type !== 'stdout') continue;
          stdout += event.data;
          for (const line of [1, 2, 3]) {
            if (stdout.includes(`got line ${line}\n`) && !log.includes(`answer ${line}`)) log.push(`answer ${line}`);
          }
        }
      };
      await within(2 * PROMPT_END_MS, 'a command answering streamed lines', consume());
      expect(log).toEqual(['yield 1', 'answer 1', 'yield 2', 'answer 2', 'yield 3', 'answer 3']);
      expect(stdout).toBe('got line 1\ngot line 2\ngot line 3\neof\n');
      expect(expectWellFormed(events)).toEqual({ exitCode: 0, timedOut: false, cancelled: false, truncated: false });
    });

    it('a command that exits without reading ends promptly with its exit code; the iterable is closed', async () => {
      const { id } = await ctx.start();
      const endless = endlessInput(new Uint8Array(64 * 1024).fill(0x61), 0);
      const outcome = await ended(ctx, id, 'exit 3 with an endless input', { command: 'exit 3', stdin: endless.input });
      expect(outcome.result).toEqual({ exitCode: 3, timedOut: false, cancelled: false, truncated: false });
      await waitFor(PROMPT_END_MS, 'the endless input closed', () => endless.state.closed);

      // A string far larger than any pipe, never read.
      const stdin = 'x'.repeat(4 * 1024 * 1024);
      const unread = await ended(ctx, id, 'true with 4 MB of unread input', { command: 'true', stdin });
      expect(unread.result).toEqual({ exitCode: 0, timedOut: false, cancelled: false, truncated: false });
      expect(await execOk(ctx.runtime, id, 'echo still-usable')).toBe('still-usable\n');
    });

    it('a command that reads part of a slow endless input and exits ends; the iterable is closed', async () => {
      const { id } = await ctx.start();
      const endless = endlessInput('a line\n', 20);
      const command = 'read -r line; echo "first: $line"';
      const outcome = await ended(ctx, id, 'read of one line from an endless input', { command, stdin: endless.input });
      expect(outcome.result.exitCode).toBe(0);
      expect(outcome.stdout).toBe('first: a line\n');
      await waitFor(PROMPT_END_MS, 'the endless input closed', () => endless.state.closed);
    });

    it('an input waiting for data has return() called when the command exits', async () => {
      const { id } = await ctx.start();
      let returned = false;
      let release: (() => void) | undefined;
      const waiting: AsyncIterable<string> = {
        [Symbol.asyncIterator]: () => ({
          next: () =>
            new Promise<IteratorResult<string>>((resolve) => {
              release = () => resolve({ done: true, value: undefined });
            }),
          return: async () => {
            returned = true;
            release?.();
            return { done: true, value: undefined };
          },
        }),
      };
      const outcome = await ended(ctx, id, 'exit 4 with a silent input', { command: 'exit 4', stdin: waiting });
      expect(outcome.result.exitCode).toBe(4);
      await waitFor(PROMPT_END_MS, 'return() called', () => returned);
    });

    it('aborting the signal while stdin is open cancels the command and closes the iterable', async () => {
      const { id } = await ctx.start();
      const endless = endlessInput('ping\n', 20);
      const controller = new AbortController();
      const events: ExecEvent[] = [];
      const abortOnOutput = async (): Promise<void> => {
        const input = { command: 'cat', stdin: endless.input, signal: controller.signal };
        for await (const event of ctx.runtime.exec(id, input)) {
          events.push(event);
          if (event.type === 'stdout') controller.abort();
        }
      };
      await within(PROMPT_END_MS, 'an aborted cat of an endless input', abortOnOutput());
      expect(expectWellFormed(events)).toEqual({ exitCode: null, timedOut: false, cancelled: true, truncated: false });
      await waitFor(PROMPT_END_MS, 'the endless input closed', () => endless.state.closed);
    });

    it('timeoutMs while stdin is open times the command out and closes the iterable', async () => {
      const { id } = await ctx.start();
      const endless = endlessInput('ping\n', 20);
      const input = { command: 'cat', stdin: endless.input, timeoutMs: 300 };
      const outcome = await ended(ctx, id, 'cat of an endless input with a 300 ms timeout', input);
      expect(outcome.result).toEqual({ exitCode: null, timedOut: true, cancelled: false, truncated: false });
      await waitFor(PROMPT_END_MS, 'the endless input closed', () => endless.state.closed);
      expect(await execOk(ctx.runtime, id, 'echo still-usable')).toBe('still-usable\n');
    });

    it('a consumer that stops early closes the iterable', async () => {
      const { id } = await ctx.start();
      const endless = endlessInput('ping\n', 20);
      const takeFirstOutput = async (): Promise<void> => {
        for await (const event of ctx.runtime.exec(id, { command: 'cat', stdin: endless.input })) {
          if (event.type === 'stdout') break;
        }
      };
      await within(PROMPT_END_MS, 'the first output of cat', takeFirstOutput());
      await waitFor(PROMPT_END_MS, 'the endless input closed', () => endless.state.closed);
    });
  });
}
