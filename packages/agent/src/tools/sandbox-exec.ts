/**
 * Runs one command in the sandbox and collects its output in order, bounded.
 * @module
 */
import type { ExecResult } from '@agent-platform/core';
import type { ToolContext } from './tool.js';

export interface CollectedExec {
  /** stdout and stderr interleaved as they came. */
  output: string;
  stdout: string;
  result: ExecResult;
}

export async function collectExec(
  context: ToolContext,
  command: string,
  options: { timeoutMs: number; maxOutputBytes: number; files?: { path: string; content: string }[] },
): Promise<CollectedExec> {
  let output = '';
  let stdout = '';
  let result: ExecResult = { exitCode: null, timedOut: false, cancelled: true, truncated: false };
  for await (const event of context.runtime.exec(context.sandboxId, {
    command,
    env: context.env,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
    signal: context.signal,
    ...(options.files ? { files: options.files } : {}),
  })) {
    if (event.type === 'exit') result = event.result;
    else {
      output += event.data;
      if (event.type === 'stdout') stdout += event.data;
    }
  }
  return { output, stdout, result };
}
