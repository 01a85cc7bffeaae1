/**
 * The read-only agent's `grep`: the lines of files under a directory that match a regular
 * expression, as `path:line:text`. A fixed `find … -exec grep` in the sandbox (only the quoted
 * pattern, path and file-name pattern vary), skipping `.git` and `node_modules` (and binary files,
 * where the sandbox's grep knows `-I`; BusyBox's takes the flag and ignores it).
 * @module
 */
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { expandBraces, findFiles, listed, MAX_RESULTS, placeOf, relative } from './file-search.js';
import { collectExec } from './sandbox-exec.js';
import { shellQuote, type ToolResult } from './tool.js';

const grepArgs = z.object({
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .describe('The regular expression to look for in file contents, as grep -E takes it (e.g. "log.*Error", "def [a-z_]+\\(").'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('The directory (or file) to search, relative to the working directory or absolute. Default: the working directory.'),
  include: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^/]*$/, 'include matches file names, not paths: give the directory in path')
    .optional()
    .describe('Only files whose name matches this glob (e.g. "*.py", "*.{ts,tsx}").'),
  ignore_case: z.boolean().optional().describe('Match regardless of case.'),
});
type GrepArgs = z.infer<typeof grepArgs>;

const fail = (text: string): ToolResult => ({ text, isError: true });

/** The `find` test of `include`: one `-name` per alternative of its braces; none without it. */
function nameTest(include: string | undefined): string {
  if (include === undefined) return '';
  const names = expandBraces(include).map((name) => `-name ${shellQuote(name)}`);
  return `\\( ${names.join(' -o ')} \\)`;
}

export function grepTool() {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with a regular expression (grep -E syntax) under a directory; answers the matching lines as path:line:text, ' +
      `at most ${MAX_RESULTS}. include keeps only files whose name matches a glob. .git and node_modules are skipped. It only reads.`,
    input: grepArgs,
    actionKind: 'GrepAction',
    observationKind: 'GrepObservation',
    summarize: (args) => `grep ${JSON.stringify(args.pattern)} in ${args.path ?? '.'}${args.include ? ` (${args.include})` : ''}`,
    readOnly: true,
    async execute(args: GrepArgs, context) {
      const root = args.path ?? '.';
      let test: string;
      try {
        test = nameTest(args.include);
      } catch (error) {
        return fail((error as Error).message);
      }
      const grep = `-exec grep -nHI${args.ignore_case ? 'i' : ''}E -e ${shellQuote(args.pattern)} -- {} +`;
      const { stdout, output, result } = await collectExec(context, findFiles(root, test, grep), { timeoutMs: 60_000, maxOutputBytes: 1024 * 1024 });
      const lines = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map(relative);
      const observation = { pattern: args.pattern, path: root, include: args.include ?? null, matches: lines.length };
      if (result.timedOut) return { ...fail('the search took longer than 60 s: narrow the path or the include pattern'), observation };
      if (lines.length === 0) {
        // No output at all is no match; output only on stderr is a bad pattern or a missing path.
        const error = output.trim();
        return error
          ? { ...fail(`grep failed: ${error.slice(0, 2000)}`), observation }
          : { text: `No lines match ${args.pattern} in ${placeOf(root)}.`, isError: false, observation };
      }
      const cut = result.truncated ? '\n[the search stopped at 1 MB of matches]' : '';
      return { text: listed(lines, 'matching lines', 'narrow the pattern, the path or include') + cut, isError: false, observation };
    },
  });
}
