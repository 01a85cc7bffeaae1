/**
 * A real MCP server (the official SDK, streamable HTTP, stateless) on loopback, for agents to
 * call: `add` and `whoami`, behind a Bearer key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface LoopbackMcpServer {
  url: string;
  calls: { tool: string; args: unknown }[];
  close(): Promise<void>;
}

export async function startMcpServer(apiKey: string): Promise<LoopbackMcpServer> {
  const calls: LoopbackMcpServer['calls'] = [];
  const build = () => {
    const server = new McpServer({ name: 'e2e-tools', version: '1.0.0' });
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      calls.push({ tool: 'add', args: { a, b } });
      return { content: [{ type: 'text', text: `the sum is ${a + b}` }] };
    });
    return server;
  };
  const http: Server = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return void res.writeHead(401).end('unauthorized');
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
