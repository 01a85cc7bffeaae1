/**
 * The tools of one run, by name, and as the model is given them.
 * @module
 */
import type { LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { AnyTool } from './tool.js';

export interface Toolbox {
  get(name: string): AnyTool | undefined;
  /** Every tool's name, in the order the model is given them. */
  readonly names: readonly string[];
  /** The tools as the provider takes them: name, description, the arguments' JSON Schema. */
  readonly wire: LanguageModelV3FunctionTool[];
}

/** The tools, in order; of two with the same name, the first is kept (built-in tools come first). */
export function toolbox(tools: readonly AnyTool[]): Toolbox {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  return {
    get: (name) => byName.get(name),
    names: [...byName.keys()],
    wire: [...byName.values()].map((tool) => ({ type: 'function', name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
  };
}
