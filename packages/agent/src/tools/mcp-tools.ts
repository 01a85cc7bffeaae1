/**
 * MCP tools (from the owner's `mcp_config`) as agent tools: OpenHands' `MCPToolAction` and
 * `MCPToolObservation`. Their schema is the server's JSON Schema; the arguments are checked by
 * the MCP server, here only that they are a JSON object.
 * @module
 */
import type { McpTool } from '../mcp/index.js';
import { defineJsonSchemaTool, jsonObject } from './define-tool.js';

export function mcpAgentTool(tool: McpTool) {
  return defineJsonSchemaTool({
    name: tool.name,
    description: tool.description || `The ${tool.name} tool of the MCP server ${tool.server}.`,
    inputSchema: { type: 'object', ...tool.inputSchema },
    accepts: jsonObject,
    actionKind: 'MCPToolAction',
    observationKind: 'MCPToolObservation',
    summarize: (args) => `${tool.name}(${JSON.stringify(args).slice(0, 200)})`,
    async execute(args, context) {
      const result = await tool.call(args, context.signal);
      return { text: result.text, isError: result.isError, observation: { tool_name: tool.name, server: tool.server } };
    },
  });
}
