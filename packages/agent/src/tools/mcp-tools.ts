/**
 * MCP tools (from the owner's `mcp_config`) as agent tools: OpenHands' `MCPToolAction` and
 * `MCPToolObservation`. The arguments are checked by the MCP server, not here.
 * @module
 */
import type { McpTool } from '../mcp/index.js';
import type { AgentTool } from './tool.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function mcpAgentTool(tool: McpTool): AgentTool<Record<string, unknown>> {
  return {
    name: tool.name,
    description: tool.description || `The ${tool.name} tool of the MCP server ${tool.server}.`,
    inputSchema: { type: 'object', ...tool.inputSchema },
    actionKind: 'MCPToolAction',
    observationKind: 'MCPToolObservation',
    parse: (input) => (isObject(input) ? { ok: true, args: input } : { ok: false, error: 'the arguments must be a JSON object' }),
    summarize: (args) => `${tool.name}(${JSON.stringify(args).slice(0, 200)})`,
    async execute(args, context) {
      const result = await tool.call(args, context.signal);
      return { text: result.text, isError: result.isError, observation: { tool_name: tool.name, server: tool.server } };
    },
  };
}
