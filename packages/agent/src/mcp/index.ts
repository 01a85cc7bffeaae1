/**
 * MCP tools for the built-in agent, from the owner's `mcp_config`: `sse_servers` and
 * `shttp_servers` through the official MCP TypeScript SDK, connected from the platform process;
 * `stdio_servers` started inside the sandbox through `SandboxRuntime.exec`.
 * @module
 */
import { redact } from '@agent-platform/core/adapter-kit';
import type { McpConfig, SandboxRuntime } from '@agent-platform/core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { boundText, resultText } from './result-text.js';
import { closeServer, connectServer, errorMessage, serverEntries, stdioFailure, type ConnectedServer, type ServerEntry } from './servers.js';
import { assignToolNames } from './tool-names.js';

export { SandboxStdioTransport, shellQuote } from './sandbox-stdio-transport.js';
export type { SandboxStdioServer } from './sandbox-stdio-transport.js';
export { MAX_RESULT_BYTES } from './result-text.js';
export { TOOL_NAME_PATTERN } from './tool-names.js';

export interface McpTool {
  /**
   * Unique across servers: the server's tool name; on a clash, prefixed `<server>_` (the stdio
   * server's name, or the URL's host). Matches /^[a-zA-Z0-9_-]{1,64}$/ (other characters become `_`).
   */
  name: string;
  description: string;
  /** The tool's JSON Schema for its arguments, as the server listed it (type object). */
  inputSchema: Record<string, unknown>;
  /**
   * Calls the tool; text of the result's content items (non-text items described in brackets),
   * isError from the result. Never throws for a tool-level error (an `isError` result, or a
   * JSON-RPC error answer from the server such as unknown tool or invalid arguments); throws for a
   * transport failure (server gone, connection lost, the call timed out) and when `signal` aborts.
   */
  call(args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text: string; isError: boolean }>;
  /** Which server (URL or stdio name) it came from, for events. */
  server: string;
}

export interface McpToolset {
  tools: McpTool[];
  /** Servers that could not be reached, with why (no secrets in it). */
  failures: { server: string; error: string }[];
  /** Closes every client and transport (kills the stdio servers in the sandbox); idempotent. */
  close(): Promise<void>;
}

export interface ConnectMcpOptions {
  runtime: SandboxRuntime;
  sandboxId: string;
  /** Aborts connecting: whatever connected is closed and `connectMcpServers` rejects with the reason. */
  signal?: AbortSignal;
  /** Per-server connect + list timeout. Default 10 s. */
  connectTimeoutMs?: number;
  /** Per-call timeout. Default 120 s. */
  callTimeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

/** Secrets shorter than this would scrub ordinary text (as in core's `secretValuesOf`). */
const MIN_SECRET_LENGTH = 4;
/** Error texts are bounded: they go into events and prompts. */
const MAX_ERROR_CHARS = 2_000;

/**
 * Connects to every server of `config` at once and lists their tools. A server that cannot be
 * reached (or answers with an error, or takes longer than `connectTimeoutMs`) is reported in
 * `failures` and left out; the others are used. Error texts never contain the config's secrets
 * (api keys, stdio env values).
 */
export async function connectMcpServers(config: McpConfig | null, options: ConnectMcpOptions): Promise<McpToolset> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  options.signal?.throwIfAborted();
  const entries = config === null ? [] : serverEntries(config, options);
  if (entries.length === 0) return { tools: [], failures: [], close: async () => undefined };

  const allSecrets = secretsOf(config);
  const scrub = (entry: ServerEntry, text: string): string =>
    boundError(
      redact(
        redact(text, allSecrets),
        entry.ownSecrets.filter((secret) => secret !== ''),
      ),
    );

  const settled = await Promise.all(
    entries.map((entry) =>
      connectServer(entry, connectTimeoutMs, options.signal).then(
        (server) => ({ entry, server, reason: undefined }),
        (reason: unknown) => ({ entry, server: undefined, reason }),
      ),
    ),
  );
  const connected: ConnectedServer[] = [];
  const failures: McpToolset['failures'] = [];
  for (const { entry, server, reason } of settled) {
    if (server !== undefined) connected.push(server);
    else failures.push({ server: entry.label, error: scrub(entry, errorMessage(reason)) });
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= Promise.allSettled(connected.map(closeServer)).then(() => undefined);
    return closing;
  };

  if (options.signal?.aborted) {
    await close();
    throw options.signal.reason;
  }

  const listed = connected.flatMap((server) => server.tools.map((tool) => ({ server, tool })));
  const names = assignToolNames(listed.map(({ server, tool }) => ({ name: tool.name, prefix: server.entry.prefix })));
  const tools = listed.map(({ server, tool }, index): McpTool => {
    const { entry, client, transport } = server;
    const name = names[index];
    if (name === undefined) throw new Error(`no tool name assigned to tool ${index}`);
    return {
      name,
      description: tool.description ?? tool.title ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
      server: entry.label,
      async call(args, signal) {
        if (closing !== undefined) throw new Error(`MCP server ${entry.label}: the toolset is closed`);
        signal?.throwIfAborted();
        try {
          const result = await client.callTool({ name: tool.name, arguments: args }, undefined, {
            signal,
            timeout: callTimeoutMs,
          });
          return { text: resultText(result), isError: result.isError === true };
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout) {
            // The server answered with a JSON-RPC error (unknown tool, invalid arguments...): the model can act on it.
            return { text: boundText(scrub(entry, error.message)), isError: true };
          }
          const reason =
            error instanceof McpError && error.code === ErrorCode.RequestTimeout
              ? `tool ${tool.name} timed out after ${callTimeoutMs} ms`
              : (stdioFailure(transport) ?? errorMessage(error));
          throw new Error(scrub(entry, `MCP server ${entry.label}: ${reason}`));
        }
      },
    };
  });

  return { tools, failures, close };
}

/** Every secret of the config, longest first (a secret containing another is replaced whole). */
function secretsOf(config: McpConfig | null): string[] {
  if (config === null) return [];
  const values: string[] = [];
  for (const server of [...(config.sse_servers ?? []), ...(config.shttp_servers ?? [])]) if (server.api_key) values.push(server.api_key);
  for (const server of config.stdio_servers ?? []) for (const value of Object.values(server.env ?? {})) if (value) values.push(value);
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

function boundError(text: string): string {
  return text.length <= MAX_ERROR_CHARS ? text : `${text.slice(0, MAX_ERROR_CHARS)}…`;
}
