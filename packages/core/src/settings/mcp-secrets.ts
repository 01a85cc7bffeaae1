/**
 * Sealing and masking of the secrets inside an MCP config: remote servers' `api_key` and stdio
 * servers' `env` values. A `null` (or omitted key) on store keeps what is stored for the same
 * server — same URL for remote servers, same name for stdio servers.
 * @module
 */
import type { McpConfig, McpConfigView, RemoteMcpServer } from '../schemas/mcp-config.js';
import type { SecretBox } from '../ports/secret-box.js';

type RemoteList = 'sse_servers' | 'shttp_servers';

function sealRemote(servers: RemoteMcpServer[], stored: RemoteMcpServer[], box: SecretBox): RemoteMcpServer[] {
  return servers.map((server) => {
    if (server.api_key === '') return { url: server.url, api_key: null };
    if (server.api_key != null) return { url: server.url, api_key: box.seal(server.api_key) };
    const kept = stored.find((candidate) => candidate.url === server.url)?.api_key ?? null;
    return { url: server.url, api_key: kept };
  });
}

/** Seals an incoming config's secrets, keeping stored ones where the input leaves them `null`. */
export function sealMcpConfig(input: McpConfig, stored: McpConfig | null, box: SecretBox): McpConfig {
  const remote = (list: RemoteList) => sealRemote(input[list], stored?.[list] ?? [], box);
  return {
    sse_servers: remote('sse_servers'),
    shttp_servers: remote('shttp_servers'),
    stdio_servers: input.stdio_servers.map((server) => {
      const storedEnv = stored?.stdio_servers.find((candidate) => candidate.name === server.name)?.env ?? {};
      const env: Record<string, string | null> = {};
      for (const [name, value] of Object.entries(server.env)) {
        const sealed = value === null ? storedEnv[name] : box.seal(value);
        // A null with nothing stored has nothing to keep: the variable is dropped.
        if (sealed != null) env[name] = sealed;
      }
      return { ...server, env };
    }),
  };
}

/** The config as returned: keys and env values masked. */
export function maskMcpConfig(config: McpConfig): McpConfigView {
  const remote = (list: RemoteList) => config[list].map((server) => ({ url: server.url, api_key: null, api_key_set: server.api_key != null }));
  return {
    sse_servers: remote('sse_servers'),
    shttp_servers: remote('shttp_servers'),
    stdio_servers: config.stdio_servers.map((server) => ({
      name: server.name,
      command: server.command,
      args: server.args,
      env: Object.fromEntries(Object.keys(server.env).map((name) => [name, null])),
    })),
  };
}

/** The config with its secrets opened: for the agent, at run time only. */
export function openMcpConfig(config: McpConfig, box: SecretBox): McpConfig {
  const open = (value: string | null | undefined) => (value == null ? null : box.open(value));
  return {
    sse_servers: config.sse_servers.map((server) => ({ url: server.url, api_key: open(server.api_key) })),
    shttp_servers: config.shttp_servers.map((server) => ({ url: server.url, api_key: open(server.api_key) })),
    stdio_servers: config.stdio_servers.map((server) => ({
      ...server,
      env: Object.fromEntries(Object.entries(server.env).map(([name, value]) => [name, open(value)])),
    })),
  };
}
