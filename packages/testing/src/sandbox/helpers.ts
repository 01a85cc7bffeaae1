/**
 * Running commands and checking errors in the sandbox conformance groups.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import type { ErrorCode, ExecEvent, ExecInput, ExecResult, SandboxRuntime } from '@agent-platform/core';

/** Everything one command produced. */
export interface ExecOutcome {
  events: ExecEvent[];
  stdout: string;
  stderr: string;
  result: ExecResult;
}

/** Checks the shape every exec stream must have: output events, then exactly one `exit`, last. */
export function expectWellFormed(events: ExecEvent[]): ExecResult {
  const exits = events.filter((event) => event.type === 'exit');
  expect(exits, 'exactly one exit event').toHaveLength(1);
  const last = events.at(-1);
  expect(last?.type, 'the exit event comes last').toBe('exit');
  for (const event of events.slice(0, -1)) {
    expect(['stdout', 'stderr']).toContain(event.type);
    if (event.type !== 'exit') expect(typeof event.data).toBe('string');
  }
  return (last as Extract<ExecEvent, { type: 'exit' }>).result;
}

/** Runs a command to the end and gathers its output. */
export async function execAll(runtime: SandboxRuntime, sandboxId: string, input: ExecInput): Promise<ExecOutcome> {
  const events: ExecEvent[] = [];
  for await (const event of runtime.exec(sandboxId, input)) events.push(event);
  const result = expectWellFormed(events);
  return { events, result, ...joinOutput(events) };
}

/** Runs a command that must succeed and returns its stdout. */
export async function execOk(runtime: SandboxRuntime, sandboxId: string, input: ExecInput | string): Promise<string> {
  const outcome = await execAll(runtime, sandboxId, typeof input === 'string' ? { command: input } : input);
  expect(outcome.result, `command failed; stderr: ${outcome.stderr}`).toMatchObject({ exitCode: 0 });
  return outcome.stdout;
}

export function joinOutput(events: ExecEvent[]): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  for (const event of events) {
    if (event.type === 'stdout') stdout += event.data;
    else if (event.type === 'stderr') stderr += event.data;
  }
  return { stdout, stderr };
}

/**
 * The error an exec fails with. The port lets it surface either from `exec()` itself or from
 * iterating what it returned; both are accepted.
 */
export async function execError(runtime: SandboxRuntime, sandboxId: string, input: ExecInput): Promise<unknown> {
  try {
    for await (const event of runtime.exec(sandboxId, input)) void event;
  } catch (error) {
    return error;
  }
  throw new Error(`exec of ${JSON.stringify(input.command)} succeeded; it was expected to fail`);
}

/** Asserts `error` is a `PlatformError` with `code`. */
export function expectPlatformError(error: unknown, code: ErrorCode): void {
  expect(error).toBeInstanceOf(PlatformError);
  expect((error as PlatformError).code).toBe(code);
}

/** Asserts the promise rejects with a `PlatformError` with `code`. */
export async function expectRejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  let error: unknown;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  expectPlatformError(error, code);
}

/** Fails with `what` when `promise` takes longer than `ms`: a liveness bound, not a speed check. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `condition` every 20 ms until it holds; fails with `what` after `ms`. */
export async function waitFor(ms: number, what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await sleep(20);
  }
}

/** Takes the rest of a stream's events into `events`. */
export async function takeRest(iterator: AsyncIterator<ExecEvent>, events: ExecEvent[]): Promise<void> {
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) events.push(next.value);
}

/** Single-quotes `value` for `sh`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A shell expression printing each variable's value, or `<unset>`, separated by `|`. */
export function printVars(...names: string[]): string {
  return `printf '%s|' ${names.map((name) => `"\${${name}-<unset>}"`).join(' ')}`;
}

/** Liveness bound for commands that must end promptly (a timeout, an abort, a delete). */
export const PROMPT_END_MS = 10_000;
