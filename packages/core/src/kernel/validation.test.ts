import { describe, expect, it } from 'vitest';
import { PlatformError, parseInput, providerTokensInputSchema, settingsInputSchema, webhookCreateInputSchema } from '@agent-platform/core';

function issuesOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).status).toBe(422);
    return (error as PlatformError).issues;
  }
  throw new Error('expected a validation failure');
}

describe('validation issues', () => {
  it('points at an MCP stdio command with spaces', () => {
    const issues = issuesOf(() => parseInput(settingsInputSchema, { mcp_config: { stdio_servers: [{ name: 'fs', command: 'npx server-fs' }] } }));
    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'mcp_config', 'stdio_servers', 0, 'command'], type: 'invalid_format' })]);
  });

  it('rejects unknown mcp_config members, bad URLs, names and env keys with exact locations', () => {
    const issues = issuesOf(() =>
      parseInput(settingsInputSchema, {
        mcp_config: {
          sse_servers: [{ url: 'ftp://example.com' }],
          shttp_servers: [{ url: 'not a url' }],
          stdio_servers: [{ name: 'bad name', command: 'x', env: { '1BAD': 'v' } }],
          extra: [],
        },
      }),
    );
    expect(issues?.map((issue) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'mcp_config', 'sse_servers', 0, 'url'],
        ['body', 'mcp_config', 'shttp_servers', 0, 'url'],
        ['body', 'mcp_config', 'stdio_servers', 0, 'name'],
        ['body', 'mcp_config', 'stdio_servers', 0, 'env', '1BAD'],
        ['body', 'mcp_config', 'extra'],
      ]),
    );
  });

  it('accepts ws and wss MCP URLs and ignores unknown settings fields', () => {
    const parsed = parseInput(settingsInputSchema, {
      mcp_config: { sse_servers: [{ url: 'wss://mcp.example.com/sse' }], shttp_servers: [{ url: 'ws://localhost:9000' }] },
      not_a_setting: true,
    });
    expect(parsed).not.toHaveProperty('not_a_setting');
    expect(parsed.mcp_config?.sse_servers[0]?.url).toBe('wss://mcp.example.com/sse');
  });

  it('names unknown providers and wrong types', () => {
    const unknown = issuesOf(() => parseInput(providerTokensInputSchema, { provider_tokens: { gitea: { token: 'x' } } }));
    expect(unknown).toEqual([expect.objectContaining({ loc: ['body', 'provider_tokens', 'gitea'], type: 'extra_forbidden' })]);
    const wrongType = issuesOf(() => parseInput(providerTokensInputSchema, { provider_tokens: { github: { token: 5 } } }));
    expect(wrongType).toEqual([expect.objectContaining({ loc: ['body', 'provider_tokens', 'github', 'token'], type: 'string_type' })]);
  });

  it('reports missing fields as "missing"', () => {
    const issues = issuesOf(() => parseInput(webhookCreateInputSchema, { source: 'linear' }));
    expect(issues).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  });

  it('refuses a reserved source, a bad header name, a short secret and an expression that does not compile', () => {
    const issues = issuesOf(() =>
      parseInput(webhookCreateInputSchema, {
        name: 'x',
        source: 'github',
        signature_header: 'Bad Header',
        webhook_secret: 'short',
        event_key_expr: 'foo[',
      }),
    );
    expect(issues?.map((issue) => issue.loc[1]).sort()).toEqual(['event_key_expr', 'signature_header', 'source', 'webhook_secret']);
  });

  it('refuses expressions that call unknown functions', () => {
    const issues = issuesOf(() => parseInput(webhookCreateInputSchema, { name: 'x', source: 'x', event_key_expr: 'nope(type)' }));
    expect(issues?.[0]).toMatchObject({ loc: ['body', 'event_key_expr'], type: 'jmespath_error', msg: 'unknown function nope()' });
  });
});
