import { z } from 'zod';

const ALLOWED_URL_PROTOCOLS = new Set(['http:', 'https:', 'ws:', 'wss:']);

/** Absolute http, https, ws or wss URL with a host. */
const serverUrlSchema = z.string().refine(
  (value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return ALLOWED_URL_PROTOCOLS.has(url.protocol) && url.hostname !== '';
  },
  { message: 'must be an absolute http, https, ws or wss URL with a host' },
);

/**
 * `api_key` is a secret: it is never returned. On read it is `null` with `api_key_set`; on
 * store, `null` or an omitted key keeps the key stored for the server with the same URL.
 */
export const remoteMcpServerSchema = z.object({
  url: serverUrlSchema,
  api_key: z.string().nullish(),
});
export type RemoteMcpServer = z.infer<typeof remoteMcpServerSchema>;

/**
 * `env` values are treated as secrets like `api_key`: returned as `null`, and a `null` value on
 * store keeps the value stored for the same server name and variable.
 */
export const stdioMcpServerSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, "_" and "-"'),
  command: z.string().min(1).regex(/^\S+$/, 'must be a single executable without spaces; pass arguments in "args"'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name'), z.string().nullable()).default({}),
});
export type StdioMcpServer = z.infer<typeof stdioMcpServerSchema>;

/** Tool-server (MCP) configuration. Unknown members are rejected. */
export const mcpConfigSchema = z.strictObject({
  sse_servers: z.array(remoteMcpServerSchema).default([]),
  stdio_servers: z.array(stdioMcpServerSchema).default([]),
  shttp_servers: z.array(remoteMcpServerSchema).default([]),
});
export type McpConfig = z.infer<typeof mcpConfigSchema>;
export type McpConfigInput = z.input<typeof mcpConfigSchema>;

/** A remote server as returned: the key masked. */
export const remoteMcpServerViewSchema = z.object({
  url: z.string(),
  api_key: z.null(),
  api_key_set: z.boolean(),
});

export const stdioMcpServerViewSchema = z.object({
  name: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  /** Variable names, values masked (`null`). */
  env: z.record(z.string(), z.null()),
});

export const mcpConfigViewSchema = z.object({
  sse_servers: z.array(remoteMcpServerViewSchema),
  stdio_servers: z.array(stdioMcpServerViewSchema),
  shttp_servers: z.array(remoteMcpServerViewSchema),
});
export type McpConfigView = z.infer<typeof mcpConfigViewSchema>;
