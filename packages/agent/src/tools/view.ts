/**
 * The read-only agent's `view`: the file editor's view alone — a file with line numbers (or a
 * range of it), or a directory two levels deep. It cannot create or change a file.
 * @module
 */
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { view } from './file-editor.js';

const viewArgs = z.object({
  path: z.string().min(1).describe('The file or directory, relative to the working directory or absolute.'),
  view_range: z.array(z.number().int()).length(2).optional().describe('[first, last] lines to show, 1-based; last -1 means to the end.'),
});

export function viewTool() {
  return defineTool({
    name: 'view',
    description:
      'Read a file in the sandbox with line numbers (view_range to show part of it), or list a directory two levels deep (hidden entries left out). ' +
      'It only reads.',
    input: viewArgs,
    actionKind: 'ViewAction',
    observationKind: 'ViewObservation',
    summarize: (args) => `view ${args.path}`,
    readOnly: true,
    async execute(args, context) {
      return { ...(await view(args, context)), observation: { path: args.path } };
    },
  });
}
