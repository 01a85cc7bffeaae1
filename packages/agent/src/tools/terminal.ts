/**
 * The terminal tool: a shell command run with `sh -c` in the sandbox's working directory, with a
 * time limit and bounded output. Each command starts a fresh shell (no state carries over), so
 * the description tells the model to chain steps with `&&`.
 * @module
 */
import { z } from 'zod';
import { collectExec } from './sandbox-exec.js';
import { defineTool } from './define-tool.js';
import { clip } from './tool.js';

const terminalArgs = z.object({
  command: z.string().min(1).describe('The shell command to run, e.g. `ls -la` or `npm test 2>&1 | tail -50`.'),
  timeout: z.number().positive().max(3600).optional().describe('Seconds before the command is killed (default 120).'),
});

export interface TerminalOptions {
  /** Default 120 s. */
  defaultTimeoutSeconds?: number;
  /** Bytes kept per stream by the sandbox. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Characters of output the model sees (start and end). Default 30,000. */
  maxOutputChars?: number;
}

export function terminalTool(options: TerminalOptions = {}) {
  const defaultTimeout = options.defaultTimeoutSeconds ?? 120;
  const maxChars = options.maxOutputChars ?? 30_000;
  return defineTool({
    name: 'terminal',
    description:
      'Run a shell command (sh -c) in the working directory of the sandbox, which holds the repository. Each call starts a fresh shell: ' +
      'chain dependent steps with && and use absolute paths or `cd dir && …`. Output (stdout and stderr) is returned with the exit code; ' +
      'long output is cut in the middle, so pipe through `head`, `tail` or `grep`. Do not start interactive programs.',
    input: terminalArgs,
    actionKind: 'TerminalAction',
    observationKind: 'TerminalObservation',
    summarize: (args) => `$ ${args.command}`,
    async execute(args, context) {
      const timeoutSeconds = args.timeout ?? defaultTimeout;
      const { output, result } = await collectExec(context, args.command, {
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
      });
      const notes: string[] = [];
      if (result.timedOut) notes.push(`[the command was killed after ${timeoutSeconds} s]`);
      if (result.truncated) notes.push('[output beyond the sandbox limit was dropped]');
      if (result.exitCode !== null) notes.push(`[exit code ${result.exitCode}]`);
      const text = [clip(output, maxChars), ...notes].filter((part) => part !== '').join('\n');
      return {
        text,
        isError: result.exitCode !== 0,
        observation: { command: args.command, exit_code: result.exitCode, timeout: result.timedOut },
      };
    },
  });
}
