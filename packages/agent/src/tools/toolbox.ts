/**
 * The tools of one run, by name, and as the model is given them. For the `llm` security analyzer
 * ({@link withRiskArguments}), every tool that changes something is given to the model with a
 * required `security_risk` argument, which the loop takes off each call before the tool sees it.
 * @module
 */
import type { LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { withRiskArgument } from '../security/model-risk.js';
import type { AnyTool } from './tool.js';

export interface Toolbox {
  get(name: string): AnyTool | undefined;
  /** Every tool's name, in the order the model is given them. */
  readonly names: readonly string[];
  /** The tools as the provider takes them: name, description, the arguments' JSON Schema. */
  readonly wire: LanguageModelV3FunctionTool[];
  /** Whether the model was asked to rate its calls of this tool (a `security_risk` argument). */
  asksRisk(name: string): boolean;
}

/** The tools, in order; of two with the same name, the first is kept (built-in tools come first). */
export function toolbox(tools: readonly AnyTool[]): Toolbox {
  return assemble(tools, false);
}

/** The same tools, each that changes something (and can take one) given a required `security_risk` argument. */
export function withRiskArguments(box: Toolbox): Toolbox {
  return assemble(
    box.names.map((name) => box.get(name) as AnyTool),
    true,
  );
}

function assemble(tools: readonly AnyTool[], riskArgument: boolean): Toolbox {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  const rated = new Set<string>();
  const wire = [...byName.values()].map((tool): LanguageModelV3FunctionTool => {
    const withRisk = riskArgument && !tool.readOnly ? withRiskArgument(tool.inputSchema) : null;
    if (withRisk) rated.add(tool.name);
    return { type: 'function', name: tool.name, description: tool.description, inputSchema: withRisk ?? tool.inputSchema };
  });
  return { get: (name) => byName.get(name), names: [...byName.keys()], wire, asksRisk: (name) => rated.has(name) };
}
