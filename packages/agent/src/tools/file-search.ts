/**
 * What the `grep` and `glob` tools share: the `find` that walks a directory in the sandbox,
 * skipping `.git` and `node_modules`, and how a result list is cut for the model. The commands
 * are fixed; only quoted paths and patterns go into them.
 * @module
 */
import { shellQuote } from './tool.js';

/** Directories neither tool walks into. */
export const SKIPPED_DIRECTORIES = ['.git', 'node_modules'] as const;

/** Most results the model is shown. */
export const MAX_RESULTS = 100;
/** Longest line of a result, in characters. */
export const MAX_LINE_CHARS = 300;

/** `path` quoted for `find`, which would take one starting with `-` for an option. */
export const findRoot = (path: string): string => shellQuote(path.startsWith('-') ? `./${path}` : path);

/** `find <root> <prune the skipped> -o <test> <action>`: regular files only. */
export function findFiles(root: string, test: string, action: string): string {
  const prune = SKIPPED_DIRECTORIES.map((name) => `-name ${shellQuote(name)}`).join(' -o ');
  return `find ${findRoot(root)} \\( ${prune} \\) -prune -o -type f ${test} ${action}`.replace(/ +/g, ' ');
}

/** Expands `{a,b}` (nested too) into every alternative: find's `-name` knows no braces. */
export function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open === -1) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    if (pattern[i] === '{') depth++;
    else if (pattern[i] === '}' && --depth === 0) {
      const cuts = [open, ...commas, i];
      const alternatives = cuts.slice(0, -1).map((cut, index) => pattern.slice(cut + 1, cuts[index + 1]));
      return alternatives.flatMap((alternative) => expandBraces(`${pattern.slice(0, open)}${alternative}${pattern.slice(i + 1)}`));
    } else if (pattern[i] === ',' && depth === 1) commas.push(i);
  }
  throw new Error(`the pattern ${JSON.stringify(pattern)} has a { without its }`);
}

/** Where a search looked, in words. */
export const placeOf = (root: string): string => (root === '.' ? 'the working directory' : root);

/** A path as `find` printed it from `.`, without the `./`. */
export const relative = (path: string): string => (path.startsWith('./') ? path.slice(2) : path);

/** The first {@link MAX_RESULTS} lines, each cut to {@link MAX_LINE_CHARS}, and a word on the rest. */
export function listed(lines: readonly string[], what: string, narrower: string): string {
  const shown = lines.slice(0, MAX_RESULTS).map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line));
  const more = lines.length - shown.length;
  return [...shown, ...(more > 0 ? [`[${more} more ${what} not shown: ${narrower}]`] : [])].join('\n');
}
