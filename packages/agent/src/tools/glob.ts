/**
 * The read-only agent's `glob`: the files under a directory whose path matches a glob, sorted.
 * The sandbox lists the files with a fixed `find` (skipping `.git` and `node_modules`); the
 * pattern is matched here.
 * @module
 */
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { findFiles, listed, MAX_RESULTS, placeOf, relative } from './file-search.js';
import { globMatcher } from './glob-pattern.js';
import { collectExec } from './sandbox-exec.js';
import { shellQuote, type ToolResult } from './tool.js';

const globArgs = z.object({
  pattern: z
    .string()
    .min(1)
    .max(500)
    .describe(
      'The glob: * within a name, ** across directories, ? one character, {a,b} either. Without a / it matches file names at any depth ("*.md"); with one, paths under path ("src/**/*.test.ts").',
    ),
  path: z.string().min(1).optional().describe('The directory to search, relative to the working directory or absolute. Default: the working directory.'),
});

const fail = (text: string): ToolResult => ({ text, isError: true });

/** Files listed at most: beyond it the listing is cut and the answer says so. */
const MAX_LISTING_BYTES = 8 * 1024 * 1024;

export function globTool() {
  return defineTool({
    name: 'glob',
    description:
      `Find files by a glob pattern under a directory; answers their paths relative to it, sorted, at most ${MAX_RESULTS}. ` +
      '.git and node_modules are skipped. It only reads.',
    input: globArgs,
    actionKind: 'GlobAction',
    observationKind: 'GlobObservation',
    summarize: (args) => `glob ${args.pattern} in ${args.path ?? '.'}`,
    readOnly: true,
    async execute(args, context) {
      const root = args.path ?? '.';
      let matches: (path: string) => boolean;
      try {
        matches = globMatcher(args.pattern);
      } catch (error) {
        return fail((error as Error).message);
      }
      const { stdout, output, result } = await collectExec(context, `cd -- ${shellQuote(root)} && ${findFiles('.', '', '-print')}`, {
        timeoutMs: 60_000,
        maxOutputBytes: MAX_LISTING_BYTES,
      });
      if (result.timedOut) return fail('listing the files took longer than 60 s: give a narrower path');
      if (result.exitCode !== 0 && stdout === '') return fail(`cannot list ${root}: ${output.trim().slice(0, 2000) || `exit code ${result.exitCode}`}`);
      const found = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map(relative)
        .filter(matches)
        .sort();
      const observation = { pattern: args.pattern, path: root, matches: found.length };
      if (found.length === 0) return { text: `No files match ${args.pattern} in ${placeOf(root)}.`, isError: false, observation };
      const cut = result.truncated ? '\n[the directory holds more files than were listed: give a narrower path]' : '';
      return { text: listed(found, 'files', 'narrow the pattern or the path') + cut, isError: false, observation };
    },
  });
}
