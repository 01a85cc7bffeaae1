/**
 * The file editor tool, in OpenHands' `str_replace_editor` manner: view a file with line numbers
 * (or a directory two levels deep), create a file, replace one exact and unique occurrence,
 * insert after a line. Files are read and written through the sandbox's `exec`, so it works the
 * same in every runtime.
 * @module
 */
import { z } from 'zod';
import { collectExec } from './sandbox-exec.js';
import { defineTool } from './define-tool.js';
import { clip, shellQuote, type ToolContext, type ToolResult } from './tool.js';

const editorArgs = z.object({
  command: z.enum(['view', 'create', 'str_replace', 'insert']).describe('What to do.'),
  path: z.string().min(1).describe('The file or directory, relative to the working directory or absolute.'),
  file_text: z.string().optional().describe("create: the new file's content."),
  old_str: z.string().optional().describe('str_replace: the exact text to replace; it must occur exactly once.'),
  new_str: z.string().optional().describe('str_replace: the replacement; insert: the text to insert.'),
  insert_line: z.number().int().min(0).optional().describe('insert: the line after which new_str goes (0 = the top).'),
  view_range: z.array(z.number().int()).length(2).optional().describe('view: [first, last] lines to show, 1-based; last -1 means to the end.'),
});
type EditorArgs = z.infer<typeof editorArgs>;

/** Largest file the editor reads whole. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Characters of a view the model sees. */
const MAX_VIEW_CHARS = 40_000;

const fail = (text: string): ToolResult => ({ text, isError: true });

async function readFile(
  context: ToolContext,
  path: string,
): Promise<{ ok: true; content: string } | { ok: false; error: string; missing?: boolean; directory?: boolean }> {
  const quoted = shellQuote(path);
  const { stdout, output, result } = await collectExec(
    context,
    `if [ -d ${quoted} ]; then echo __DIR__ >&2; exit 3; elif [ ! -e ${quoted} ]; then exit 4; else cat -- ${quoted}; fi`,
    { timeoutMs: 30_000, maxOutputBytes: MAX_FILE_BYTES },
  );
  if (result.exitCode === 3) return { ok: false, error: `${path} is a directory`, directory: true };
  if (result.exitCode === 4) return { ok: false, error: `${path} does not exist`, missing: true };
  if (result.truncated) return { ok: false, error: `${path} is larger than ${MAX_FILE_BYTES} bytes: use the terminal (sed, head, grep) instead` };
  if (result.exitCode !== 0) return { ok: false, error: `cannot read ${path}: ${output.trim() || `exit code ${result.exitCode}`}` };
  return { ok: true, content: stdout };
}

async function writeFile(context: ToolContext, path: string, content: string): Promise<ToolResult | null> {
  const { output, result } = await collectExec(context, 'true', { timeoutMs: 30_000, maxOutputBytes: 64 * 1024, files: [{ path, content }] });
  return result.exitCode === 0 ? null : fail(`cannot write ${path}: ${output.trim() || `exit code ${result.exitCode}`}`);
}

const numbered = (lines: string[], first: number): string => lines.map((line, index) => `${String(first + index).padStart(6)}\t${line}`).join('\n');

/** A few numbered lines around an edit, so the model sees the result. */
function snippet(content: string, aroundLine: number, span: number): string {
  const lines = content.split('\n');
  const start = Math.max(0, aroundLine - 4);
  const end = Math.min(lines.length, aroundLine + span + 4);
  return numbered(lines.slice(start, end), start + 1);
}

/** `view`: a file with line numbers (or part of it), or a directory two levels deep; also the read-only agent's `view` tool. */
export async function view(args: Pick<EditorArgs, 'path' | 'view_range'>, context: ToolContext): Promise<ToolResult> {
  const file = await readFile(context, args.path);
  if (!file.ok && file.directory) {
    const { stdout, result } = await collectExec(context, `find ${shellQuote(args.path)} -maxdepth 2 -not -path '*/.*' | sort | head -n 500`, {
      timeoutMs: 30_000,
      maxOutputBytes: 256 * 1024,
    });
    if (result.exitCode !== 0) return fail(`cannot list ${args.path}`);
    return { text: `Files and directories up to 2 levels deep in ${args.path} (hidden ones left out):\n${stdout.trimEnd()}`, isError: false };
  }
  if (!file.ok) return fail(file.error);
  const lines = file.content.endsWith('\n') ? file.content.slice(0, -1).split('\n') : file.content.split('\n');
  let first = 1;
  let last = lines.length;
  if (args.view_range) {
    const [from, to] = args.view_range as [number, number];
    if (from < 1 || from > Math.max(1, lines.length)) return fail(`view_range starts at ${from}, but the file has ${lines.length} lines`);
    if (to !== -1 && (to < from || to > lines.length)) return fail(`view_range ends at ${to}: it must be -1 or between ${from} and ${lines.length}`);
    first = from;
    last = to === -1 ? lines.length : to;
  }
  const body = numbered(lines.slice(first - 1, last), first);
  return { text: `Here is ${args.path} (lines ${first}-${last} of ${lines.length}):\n${clip(body, MAX_VIEW_CHARS)}`, isError: false };
}

async function create(args: EditorArgs, context: ToolContext): Promise<ToolResult> {
  if (args.file_text === undefined) return fail('create needs file_text');
  const existing = await readFile(context, args.path);
  if (existing.ok || existing.directory) return fail(`${args.path} already exists: use str_replace or insert to change it`);
  return (await writeFile(context, args.path, args.file_text)) ?? { text: `Created ${args.path}.`, isError: false };
}

async function replace(args: EditorArgs, context: ToolContext): Promise<ToolResult> {
  if (args.old_str === undefined || args.old_str === '') return fail('str_replace needs a non-empty old_str');
  const file = await readFile(context, args.path);
  if (!file.ok) return fail(file.error);
  const first = file.content.indexOf(args.old_str);
  if (first === -1) return fail(`old_str does not occur in ${args.path} verbatim (mind whitespace and indentation); nothing was changed`);
  const second = file.content.indexOf(args.old_str, first + 1);
  if (second !== -1) {
    const lineOf = (index: number) => file.content.slice(0, index).split('\n').length;
    return fail(
      `old_str occurs more than once in ${args.path} (lines ${lineOf(first)} and ${lineOf(second)}): add context to make it unique; nothing was changed`,
    );
  }
  const newStr = args.new_str ?? '';
  const content = file.content.slice(0, first) + newStr + file.content.slice(first + args.old_str.length);
  const failed = await writeFile(context, args.path, content);
  if (failed) return failed;
  const line = file.content.slice(0, first).split('\n').length;
  return { text: `Edited ${args.path}. The lines around the change:\n${snippet(content, line, newStr.split('\n').length)}`, isError: false };
}

async function insert(args: EditorArgs, context: ToolContext): Promise<ToolResult> {
  if (args.insert_line === undefined || args.new_str === undefined) return fail('insert needs insert_line and new_str');
  const file = await readFile(context, args.path);
  if (!file.ok) return fail(file.error);
  const trailing = file.content.endsWith('\n');
  const lines = file.content === '' ? [] : (trailing ? file.content.slice(0, -1) : file.content).split('\n');
  if (args.insert_line > lines.length) return fail(`insert_line ${args.insert_line} is past the end: the file has ${lines.length} lines`);
  lines.splice(args.insert_line, 0, ...args.new_str.split('\n'));
  const content = lines.join('\n') + (trailing || file.content === '' ? '\n' : '');
  const failed = await writeFile(context, args.path, content);
  if (failed) return failed;
  return { text: `Inserted into ${args.path}:\n${snippet(content, args.insert_line, args.new_str.split('\n').length)}`, isError: false };
}

export function fileEditorTool() {
  return defineTool({
    name: 'file_editor',
    description:
      'View, create and edit files in the sandbox. view: a file with line numbers (view_range to show part of it) or a directory two levels deep. ' +
      'create: a new file with file_text (fails if it exists). str_replace: replace old_str, which must occur exactly once, with new_str. ' +
      'insert: insert new_str after line insert_line (0 for the top).',
    input: editorArgs,
    actionKind: 'FileEditorAction',
    observationKind: 'FileEditorObservation',
    summarize: (args) => `${args.command} ${args.path}`,
    async execute(args, context) {
      const result =
        args.command === 'view'
          ? await view(args, context)
          : args.command === 'create'
            ? await create(args, context)
            : args.command === 'str_replace'
              ? await replace(args, context)
              : await insert(args, context);
      return { ...result, observation: { command: args.command, path: args.path } };
    },
  });
}
