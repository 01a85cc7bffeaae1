/**
 * The tools that read the sandbox, for the read-only agent (`toolset: 'read-only'`): `view` a
 * file or directory, `grep` contents, `glob` paths. With think, finish, web search (when the
 * owner has a key) and the platform tools that only list, they are all it has: no terminal, no
 * file edits, no GitHub writes, no MCP tools (nothing tells which of those only read).
 * @module
 */
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import type { AnyTool } from './tool.js';
import { viewTool } from './view.js';

export const readOnlySandboxTools = (): AnyTool[] => [viewTool(), grepTool(), globTool()];
