/**
 * The MCP servers of an `mcp_config`, one by one: how each is reached (a URL with its Bearer key,
 * or a stdio command in the sandbox), connected with its tools listed, and closed.
 * @module
 */
import type { McpConfig, SandboxRuntime } from '@agent-platform/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { SandboxStdioTransport } from './sandbox-stdio-transport.js';
import { sanitizeToolName } from './tool-names.js';

const CLIENT_INFO = { name: 'agent-platform', version: '1.0.0' };
/** Pages of `tools/list` followed per server. */
const MAX_LIST_PAGES = 100;
/** How long `close()` waits for a streamable-HTTP server to end its session. */
const TERMINATE_SESSION_MS = 1_000;

export interface ServerEntry {
  /** For `McpTool.server` and failures: the URL (without any userinfo) or the stdio name. */
  label: string;
  /** For prefixing clashing tool names: the stdio name or the URL's host. */
  prefix: string;
  /** This server's own secrets (its api_key, its env values): always scrubbed from its errors. */
  ownSecrets: string[];
  transport(): Transport;
}

export interface ConnectedServer {
  entry: ServerEntry;
  client: Client;
  transport: Transport;
  tools: Tool[];
}

export function serverEntries(config: McpConfig, options: { runtime: SandboxRuntime; sandboxId: string }): ServerEntry[] {
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
      const env = Object.fromEntries(Object.entries(server.env ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
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

export async function connectServer(entry: ServerEntry, timeoutMs: number, outer: AbortSignal | undefined): Promise<ConnectedServer> {
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

export async function closeServer(server: ConnectedServer): Promise<void> {
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

export function stdioFailure(transport: Transport): string | undefined {
  return transport instanceof SandboxStdioTransport ? transport.failure() : undefined;
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

/** The error's message, with its cause's when that adds something (`fetch failed (connect ECONNREFUSED ...)`). */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let message = error.message || error.name;
  if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code > 0) {
    message = `${message} (HTTP ${error.code})`;
  }
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !message.includes(cause) ? `${message} (${cause})` : message;
}
