/**
 * MCP tools for the built-in agent, from the owner's `mcp_config`: `sse_servers` and
 * `shttp_servers` through the official MCP TypeScript SDK, connected from the platform process;
 * `stdio_servers` started inside the sandbox through `SandboxRuntime.exec`.
 * @module
 */
import { redact } from '@agent-platform/core';
import type { McpConfig, SandboxRuntime } from '@agent-platform/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { SandboxStdioTransport } from './sandbox-stdio-transport.js';
import { boundText, resultText } from './result-text.js';
import { assignToolNames, sanitizeToolName } from './tool-names.js';

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

const CLIENT_INFO = { name: 'agent-platform', version: '1.0.0' };
/** Secrets shorter than this would scrub ordinary text (as in core's `secretValuesOf`). */
const MIN_SECRET_LENGTH = 4;
/** Error texts are bounded: they go into events and prompts. */
const MAX_ERROR_CHARS = 2_000;
/** Pages of `tools/list` followed per server. */
const MAX_LIST_PAGES = 100;
/** How long `close()` waits for a streamable-HTTP server to end its session. */
const TERMINATE_SESSION_MS = 1_000;

interface ServerEntry {
  /** For `McpTool.server` and failures: the URL (without any userinfo) or the stdio name. */
  label: string;
  /** For prefixing clashing tool names: the stdio name or the URL's host. */
  prefix: string;
  /** This server's own secrets (its api_key, its env values): always scrubbed from its errors. */
  ownSecrets: string[];
  transport(): Transport;
}

interface ConnectedServer {
  entry: ServerEntry;
  client: Client;
  transport: Transport;
  tools: Tool[];
}

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
    boundError(redact(redact(text, allSecrets), entry.ownSecrets.filter((secret) => secret !== '')));

  const settled = await Promise.allSettled(entries.map((entry) => connectServer(entry, connectTimeoutMs, options.signal)));
  const connected: ConnectedServer[] = [];
  const failures: McpToolset['failures'] = [];
  settled.forEach((outcome, index) => {
    const entry = entries[index]!;
    if (outcome.status === 'fulfilled') connected.push(outcome.value);
    else failures.push({ server: entry.label, error: scrub(entry, errorMessage(outcome.reason)) });
  });

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
    return {
      name: names[index]!,
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

function serverEntries(config: McpConfig, options: ConnectMcpOptions): ServerEntry[] {
  const remote = (url: string, apiKey: string | null | undefined, kind: 'sse' | 'shttp'): ServerEntry => {
    const headers: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
    return {
      label: urlLabel(url),
      prefix: urlPrefix(url),
      ownSecrets: apiKey ? [apiKey] : [],
      transport: () => {
        const target = new URL(url);
        // The SDK sends `requestInit.headers` with every request, the SSE stream's GET included.
        return kind === 'sse'
          ? new SSEClientTransport(target, { requestInit: { headers } })
          : new StreamableHTTPClientTransport(target, { requestInit: { headers } });
      },
    };
  };
  return [
    ...(config.sse_servers ?? []).map((server) => remote(server.url, server.api_key, 'sse')),
    ...(config.shttp_servers ?? []).map((server) => remote(server.url, server.api_key, 'shttp')),
    ...(config.stdio_servers ?? []).map((server): ServerEntry => {
      const env = Object.fromEntries(
        Object.entries(server.env ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      return {
        label: server.name,
        prefix: server.name,
        ownSecrets: Object.values(env),
        transport: () =>
          new SandboxStdioTransport(options.runtime, options.sandboxId, {
            command: server.command,
            args: server.args ?? [],
            env,
          }),
      };
    }),
  ];
}

async function connectServer(entry: ServerEntry, timeoutMs: number, outer: AbortSignal | undefined): Promise<ConnectedServer> {
  const transport = entry.transport();
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // Errors the transport reports out of band (a dropped SSE stream...) surface through the calls.
  client.onerror = () => undefined;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${timeoutMs} ms (connect and list tools)`)), timeoutMs);
  const onOuterAbort = (): void => abort.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const work = (async () => {
      await client.connect(transport, { signal: abort.signal, timeout: timeoutMs });
      return listTools(client, abort.signal, timeoutMs);
    })();
    // When the deadline wins, the work fails later (the client is closed): not unhandled.
    work.catch(() => undefined);
    const tools = await Promise.race([work, aborted]);
    return { entry, client, transport, tools };
  } catch (error) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    const failure = stdioFailure(transport);
    if (failure !== undefined) throw new Error(failure);
    if (transport instanceof SandboxStdioTransport) throw new Error(transport.withStderr(errorMessage(error)));
    throw error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

async function listTools(client: Client, signal: AbortSignal, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout });
    tools.push(...result.tools);
    if (!result.nextCursor || result.nextCursor === cursor) break;
    cursor = result.nextCursor;
  }
  return tools;
}

async function closeServer(server: ConnectedServer): Promise<void> {
  const { client, transport } = server;
  if (transport instanceof StreamableHTTPClientTransport) {
    // Polite, not required: end the session on the server. Bounded, errors ignored.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      transport.terminateSession().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TERMINATE_SESSION_MS);
      }),
    ]);
    clearTimeout(timer);
  }
  await client.close().catch(() => undefined);
  await transport.close().catch(() => undefined);
}

function stdioFailure(transport: Transport): string | undefined {
  return transport instanceof SandboxStdioTransport ? transport.failure() : undefined;
}

/** Every secret of the config, longest first (a secret containing another is replaced whole). */
function secretsOf(config: McpConfig | null): string[] {
  if (config === null) return [];
  const values: string[] = [];
  for (const server of [...(config.sse_servers ?? []), ...(config.shttp_servers ?? [])]) if (server.api_key) values.push(server.api_key);
  for (const server of config.stdio_servers ?? []) for (const value of Object.values(server.env ?? {})) if (value) values.push(value);
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/** The URL as given, unless it carries userinfo: then without it. */
function urlLabel(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

function urlPrefix(url: string): string {
  try {
    return sanitizeToolName(new URL(url).host);
  } catch {
    return sanitizeToolName(url);
  }
}

function boundError(text: string): string {
  return text.length <= MAX_ERROR_CHARS ? text : `${text.slice(0, MAX_ERROR_CHARS)}…`;
}

/** The error's message, with its cause's when that adds something (`fetch failed (connect ECONNREFUSED ...)`). */
function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let message = error.message || error.name;
  if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code > 0) {
    message = `${message} (HTTP ${error.code})`;
  }
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !message.includes(cause) ? `${message} (${cause})` : message;
}
