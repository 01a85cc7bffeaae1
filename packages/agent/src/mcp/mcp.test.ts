import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { McpConfig, SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectMcpServers, MAX_RESULT_BYTES, shellQuote } from './index.js';
import type { McpToolset } from './index.js';
import { boundText, resultText } from './result-text.js';
import { assignToolNames, sanitizeToolName, TOOL_NAME_PATTERN } from './tool-names.js';

const API_KEY = 'test-key-0123456789abcdef';
const WRONG_KEY = 'wrong-key-fedcba9876543210';

/** An MCP server with `add` (checks the Authorization header), `fail`, `throws`, `slow` and `big`. */
function buildServer(name: string): McpServer {
  const server = new McpServer({ name, version: '1.0.0' });
  server.registerTool('add', { description: `Adds two numbers (${name})`, inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }, extra) => {
    const auth = extra.requestInfo?.headers.authorization;
    if (auth !== `Bearer ${API_KEY}`) return { content: [{ type: 'text', text: 'unauthorized' }], isError: true };
    return { content: [{ type: 'text', text: `${a + b}` }] };
  });
  server.registerTool('fail', { description: 'Always fails' }, async () => ({
    content: [{ type: 'text', text: 'it went wrong' }],
    isError: true,
  }));
  server.registerTool('throws', { description: 'Throws' }, async () => {
    throw new Error('thrown inside');
  });
  server.registerTool('slow', { description: 'Takes 2 s' }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    return { content: [{ type: 'text', text: 'late' }] };
  });
  server.registerTool('big', { description: 'Returns 100 KB' }, async () => ({
    content: [
      { type: 'text', text: 'x'.repeat(100 * 1024) },
      { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
    ],
  }));
  server.registerTool('mixed', { description: 'Text and an image' }, async () => ({
    content: [
      { type: 'text', text: 'first' },
      { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
      { type: 'text', text: 'second' },
    ],
  }));
  return server;
}

/** 401 (echoing the key it got, to prove the client scrubs it) unless the Bearer key is right. */
function authorized(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.authorization === `Bearer ${API_KEY}`) return true;
  res.writeHead(401, { 'content-type': 'text/plain' }).end(`bad credentials: ${req.headers.authorization ?? 'none'}`);
  return false;
}

interface TestServer {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, path: string): Promise<TestServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Streamable HTTP, stateless: a server and transport per request. */
async function startShttpServer(name: string): Promise<TestServer> {
  const http = createServer(async (req, res) => {
    if (!authorized(req, res)) return;
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const server = buildServer(name);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  return listen(http, '/mcp');
}

async function startSseServer(name: string): Promise<TestServer> {
  const transports = new Map<string, SSEServerTransport>();
  const http = createServer(async (req, res) => {
    if (!authorized(req, res)) return;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      await buildServer(name).connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && transport) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  return listen(http, '/sse');
}

function config(partial: Partial<McpConfig>): McpConfig {
  return { sse_servers: [], shttp_servers: [], stdio_servers: [], ...partial };
}

function tool(toolset: McpToolset, name: string) {
  const found = toolset.tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name} in ${toolset.tools.map((t) => t.name).join(', ')}`);
  return found;
}

let runtime: SandboxRuntime;
let shttp: TestServer;
let shttp2: TestServer;
let sse: TestServer;
const SANDBOX = 'mcp-test';

beforeAll(async () => {
  runtime = createProcessRuntime();
  await runtime.start({ sandboxId: SANDBOX, specId: 'process-default' });
  [shttp, shttp2, sse] = await Promise.all([startShttpServer('one'), startShttpServer('two'), startSseServer('sse')]);
});

afterAll(async () => {
  await Promise.all([shttp?.close(), shttp2?.close(), sse?.close()]);
  await runtime?.close();
});

describe('connectMcpServers: remote servers', () => {
  it('returns an empty toolset for a null or empty config', async () => {
    for (const value of [null, config({})]) {
      const toolset = await connectMcpServers(value, { runtime, sandboxId: SANDBOX });
      expect(toolset.tools).toEqual([]);
      expect(toolset.failures).toEqual([]);
      await toolset.close();
    }
  });

  it('lists and calls the tools of a streamable-HTTP server, with the Bearer key', async () => {
    const toolset = await connectMcpServers(config({ shttp_servers: [{ url: shttp.url, api_key: API_KEY }] }), {
      runtime,
      sandboxId: SANDBOX,
    });
    try {
      expect(toolset.failures).toEqual([]);
      expect(toolset.tools.map((t) => t.name).sort()).toEqual(['add', 'big', 'fail', 'mixed', 'slow', 'throws']);
      const add = tool(toolset, 'add');
      expect(add.server).toBe(shttp.url);
      expect(add.description).toBe('Adds two numbers (one)');
      expect(add.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      });
      await expect(add.call({ a: 2, b: 3 })).resolves.toEqual({ text: '5', isError: false });
    } finally {
      await toolset.close();
    }
  });

  it('lists and calls the tools of an SSE server, with the Bearer key', async () => {
    const toolset = await connectMcpServers(config({ sse_servers: [{ url: sse.url, api_key: API_KEY }] }), {
      runtime,
      sandboxId: SANDBOX,
    });
    try {
      expect(toolset.failures).toEqual([]);
      const add = tool(toolset, 'add');
      expect(add.server).toBe(sse.url);
      expect(add.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
      await expect(add.call({ a: 40, b: 2 })).resolves.toEqual({ text: '42', isError: false });
    } finally {
      await toolset.close();
    }
  });

  it('reports servers refusing the key (or unreachable) in failures, without the key, and goes on with the rest', async () => {
    const unreachable = await startShttpServer('gone');
    await unreachable.close();
    const toolset = await connectMcpServers(
      config({
        shttp_servers: [
          { url: shttp.url, api_key: WRONG_KEY },
          { url: shttp2.url, api_key: API_KEY },
          { url: unreachable.url, api_key: API_KEY },
        ],
        sse_servers: [{ url: sse.url, api_key: WRONG_KEY }],
      }),
      { runtime, sandboxId: SANDBOX },
    );
    try {
      expect(toolset.failures.map((failure) => failure.server).sort()).toEqual([shttp.url, sse.url, unreachable.url].sort());
      for (const failure of toolset.failures) {
        expect(failure.error).not.toBe('');
        expect(failure.error).not.toContain(WRONG_KEY);
        expect(failure.error).not.toContain(API_KEY);
      }
      expect(toolset.failures.find((failure) => failure.server === shttp.url)?.error).toContain('401');
      // The server echoed the key it got in its 401 body: scrubbed.
      expect(toolset.failures.find((failure) => failure.server === shttp.url)?.error).toContain('Bearer [redacted]');
      expect(toolset.failures.find((failure) => failure.server === unreachable.url)?.error).toMatch(/fetch failed \(.*ECONNREFUSED/);
      expect(toolset.failures.find((failure) => failure.server === sse.url)?.error).toMatch(/401/);
      // The good server's tools are there, unprefixed: nothing clashes.
      await expect(tool(toolset, 'add').call({ a: 1, b: 1 })).resolves.toEqual({ text: '2', isError: false });
    } finally {
      await toolset.close();
    }
  });

  it('returns tool-level errors as isError without throwing', async () => {
    const toolset = await connectMcpServers(config({ shttp_servers: [{ url: shttp.url, api_key: API_KEY }] }), {
      runtime,
      sandboxId: SANDBOX,
    });
    try {
      await expect(tool(toolset, 'fail').call({})).resolves.toEqual({ text: 'it went wrong', isError: true });
      const thrown = await tool(toolset, 'throws').call({});
      expect(thrown.isError).toBe(true);
      expect(thrown.text).toContain('thrown inside');
      const invalid = await tool(toolset, 'add').call({ a: 'x', b: 1 });
      expect(invalid.isError).toBe(true);
    } finally {
      await toolset.close();
    }
  });

  it('describes non-text content in brackets and bounds the text to 64 KB', async () => {
    const toolset = await connectMcpServers(config({ sse_servers: [{ url: sse.url, api_key: API_KEY }] }), {
      runtime,
      sandboxId: SANDBOX,
    });
    try {
      await expect(tool(toolset, 'mixed').call({})).resolves.toEqual({
        text: 'first\n[image: image/png, 5 bytes]\nsecond',
        isError: false,
      });
      const big = await tool(toolset, 'big').call({});
      expect(Buffer.byteLength(big.text)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
      expect(big.text).toMatch(/\[output truncated: the first \d+ of \d+ bytes shown\]$/);
      expect(big.isError).toBe(false);
    } finally {
      await toolset.close();
    }
  });

  it('throws when a call times out or is aborted', async () => {
    const toolset = await connectMcpServers(config({ shttp_servers: [{ url: shttp.url, api_key: API_KEY }] }), {
      runtime,
      sandboxId: SANDBOX,
      callTimeoutMs: 200,
    });
    try {
      await expect(tool(toolset, 'slow').call({})).rejects.toThrow(/timed out after 200 ms/);
      const abort = new AbortController();
      const call = tool(toolset, 'slow').call({}, abort.signal);
      abort.abort(new Error('user stopped'));
      await expect(call).rejects.toThrow('user stopped');
    } finally {
      await toolset.close();
    }
  });

  it('gives distinct names to the same tool on two servers', async () => {
    const toolset = await connectMcpServers(
      config({
        shttp_servers: [
          { url: shttp.url, api_key: API_KEY },
          { url: shttp2.url, api_key: API_KEY },
        ],
      }),
      { runtime, sandboxId: SANDBOX },
    );
    try {
      expect(toolset.failures).toEqual([]);
      const names = toolset.tools.map((t) => t.name);
      expect(new Set(names).size).toBe(names.length);
      for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
      const port1 = new URL(shttp.url).port;
      const port2 = new URL(shttp2.url).port;
      const add1 = tool(toolset, `127_0_0_1_${port1}_add`);
      const add2 = tool(toolset, `127_0_0_1_${port2}_add`);
      expect(add1.server).toBe(shttp.url);
      expect(add2.server).toBe(shttp2.url);
      expect(add1.description).toContain('(one)');
      expect(add2.description).toContain('(two)');
      await expect(add2.call({ a: 1, b: 2 })).resolves.toEqual({ text: '3', isError: false });
    } finally {
      await toolset.close();
    }
  });

  it('close() is idempotent and calls after it throw', async () => {
    const toolset = await connectMcpServers(config({ sse_servers: [{ url: sse.url, api_key: API_KEY }] }), {
      runtime,
      sandboxId: SANDBOX,
    });
    const add = tool(toolset, 'add');
    await Promise.all([toolset.close(), toolset.close()]);
    await toolset.close();
    await expect(add.call({ a: 1, b: 2 })).rejects.toThrow(/closed/);
  });

  it('rejects when its signal aborts while connecting', async () => {
    const abort = new AbortController();
    abort.abort(new Error('run cancelled'));
    await expect(
      connectMcpServers(config({ shttp_servers: [{ url: shttp.url, api_key: API_KEY }] }), {
        runtime,
        sandboxId: SANDBOX,
        signal: abort.signal,
      }),
    ).rejects.toThrow('run cancelled');
  });
});

describe('connectMcpServers: stdio servers in the sandbox', () => {
  const require = createRequire(import.meta.url);
  const sdkMcp = require.resolve('@modelcontextprotocol/sdk/server/mcp.js');
  const sdkStdio = require.resolve('@modelcontextprotocol/sdk/server/stdio.js');
  const zodPath = createRequire(sdkMcp).resolve('zod');

  /** A CommonJS script serving `greet` (reads GREETING from its env) and `add`; writes its pid first. */
  const script = `
const { writeFileSync } = require('node:fs');
const { McpServer } = require(${JSON.stringify(sdkMcp)});
const { StdioServerTransport } = require(${JSON.stringify(sdkStdio)});
const { z } = require(${JSON.stringify(zodPath)});
writeFileSync('server.pid', String(process.pid));
const server = new McpServer({ name: 'stdio-test', version: '1.0.0' });
server.registerTool('greet', { description: 'Greets', inputSchema: { who: z.string() } }, async ({ who }) => ({
  content: [{ type: 'text', text: process.env.GREETING + ', ' + who }],
}));
server.registerTool('add', { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: 'text', text: String(a + b) }],
}));
server.registerTool('fail', { description: 'Fails' }, async () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }));
console.error('stdio test server starting');
process.stdout.write('a log line that is not JSON\\n');
server.connect(new StdioServerTransport());
`;

  let workingDir: string;

  beforeAll(async () => {
    workingDir = (await runtime.inspect(SANDBOX)).workingDir;
    for await (const event of runtime.exec(SANDBOX, {
      command: 'true',
      files: [{ path: 'mcp server/server.cjs', content: script }],
    })) {
      if (event.type === 'exit') expect(event.result.exitCode).toBe(0);
    }
  });

  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  it('runs the server in the sandbox, lists and calls its tools, and close() kills it', async () => {
    const toolset = await connectMcpServers(
      config({
        stdio_servers: [
          {
            name: 'local',
            command: process.execPath,
            args: [join(workingDir, 'mcp server', 'server.cjs')],
            env: { GREETING: 'Hello there' },
          },
        ],
        shttp_servers: [{ url: shttp.url, api_key: API_KEY }],
      }),
      { runtime, sandboxId: SANDBOX },
    );
    try {
      expect(toolset.failures).toEqual([]);
      const greet = tool(toolset, 'greet');
      expect(greet.server).toBe('local');
      expect(greet.inputSchema).toMatchObject({ type: 'object', properties: { who: { type: 'string' } } });
      await expect(greet.call({ who: 'agent' })).resolves.toEqual({ text: 'Hello there, agent', isError: false });
      // `add` and `fail` are on both servers: prefixed with the stdio name and the URL's host.
      await expect(tool(toolset, 'local_add').call({ a: 20, b: 22 })).resolves.toEqual({ text: '42', isError: false });
      await expect(tool(toolset, 'local_fail').call({})).resolves.toEqual({ text: 'nope', isError: true });
      await expect(tool(toolset, `127_0_0_1_${new URL(shttp.url).port}_add`).call({ a: 1, b: 1 })).resolves.toEqual({
        text: '2',
        isError: false,
      });
    } catch (error) {
      await toolset.close();
      throw error;
    }
    const pid = Number(await readFile(join(workingDir, 'server.pid'), 'utf8'));
    expect(alive(pid)).toBe(true);
    await toolset.close();
    expect(alive(pid)).toBe(false);
    await expect(tool(toolset, 'greet').call({ who: 'again' })).rejects.toThrow(/closed/);
  }, 20_000);

  it('reports a server that exits with its exit code and stderr, without its env secrets', async () => {
    const toolset = await connectMcpServers(
      config({
        stdio_servers: [
          {
            name: 'broken',
            command: 'sh',
            args: ['-c', 'echo "cannot start with token $TOKEN" >&2; exit 3'],
            env: { TOKEN: 'very-secret-token-value' },
          },
          { name: 'missing', command: 'no-such-mcp-server-command', args: [], env: {} },
        ],
      }),
      { runtime, sandboxId: SANDBOX },
    );
    await toolset.close();
    expect(toolset.tools).toEqual([]);
    const broken = toolset.failures.find((failure) => failure.server === 'broken');
    expect(broken?.error).toMatch(/exited with code 3/);
    expect(broken?.error).toContain('cannot start with token [redacted]');
    expect(broken?.error).not.toContain('very-secret-token-value');
    expect(toolset.failures.find((failure) => failure.server === 'missing')?.error).toMatch(/exited with code 127/);
  });

  it('reports a sandbox it cannot run in', async () => {
    const toolset = await connectMcpServers(config({ stdio_servers: [{ name: 'nowhere', command: 'true', args: [], env: {} }] }), {
      runtime,
      sandboxId: 'no-such-sandbox',
    });
    await toolset.close();
    expect(toolset.failures).toEqual([{ server: 'nowhere', error: expect.stringMatching(/could not run the server: .*no-such-sandbox/) }]);
  });

  it('gives up on a server that does not answer within connectTimeoutMs, and kills it', async () => {
    const started = Date.now();
    const toolset = await connectMcpServers(
      config({
        stdio_servers: [{ name: 'mute', command: 'sh', args: ['-c', 'echo $$ > mute.pid; exec sleep 30'], env: {} }],
      }),
      { runtime, sandboxId: SANDBOX, connectTimeoutMs: 300 },
    );
    await toolset.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(toolset.failures).toEqual([{ server: 'mute', error: expect.stringMatching(/no answer within 300 ms/) }]);
    const pid = Number(await readFile(join(workingDir, 'mute.pid'), 'utf8'));
    expect(alive(pid)).toBe(false);
  });
});

describe('tool names', () => {
  it('sanitizes names to the providers’ pattern', () => {
    expect(sanitizeToolName('read file.txt')).toBe('read_file_txt');
    expect(sanitizeToolName('')).toBe('tool');
    expect(sanitizeToolName('a'.repeat(100))).toHaveLength(64);
    expect(sanitizeToolName('ünïcode')).toMatch(TOOL_NAME_PATTERN);
  });

  it('prefixes clashing names with their server and dedupes the rest', () => {
    expect(
      assignToolNames([
        { name: 'search', prefix: 'github' },
        { name: 'search', prefix: 'linear' },
        { name: 'create', prefix: 'github' },
        { name: 'search', prefix: 'linear' },
      ]),
    ).toEqual(['github_search', 'linear_search', 'create', 'linear_search_2']);
    const long = assignToolNames([
      { name: 'x'.repeat(64), prefix: 'one' },
      { name: 'x'.repeat(64), prefix: 'two' },
    ]);
    expect(new Set(long).size).toBe(2);
    for (const name of long) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});

describe('result text', () => {
  it('bounds by UTF-8 bytes without cutting a character', () => {
    const text = 'é'.repeat(40_000); // 80,000 bytes
    const bounded = boundText(text);
    expect(Buffer.byteLength(bounded)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(bounded).not.toContain('\uFFFD');
    expect(bounded).toMatch(/of 80000 bytes shown\]$/);
    expect(boundText('short')).toBe('short');
  });

  it('describes resources and falls back to structured content', () => {
    expect(
      resultText({
        content: [
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'contents' } },
          { type: 'resource_link', uri: 'file:///b', name: 'b' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
      }),
    ).toBe('[resource: file:///a.txt, text/plain]\ncontents\n[resource link: b file:///b]\n[audio: audio/wav, 3 bytes]');
    expect(resultText({ content: [], structuredContent: { ok: true } })).toBe('{"ok":true}');
  });

  it('shell-quotes words that need it', () => {
    expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('$HOME')).toBe("'$HOME'");
  });
});
