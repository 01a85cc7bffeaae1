/**
 * The read-only agent (`toolset: 'read-only'`), driven by the scripted model in a process
 * sandbox: what the model is offered (only tools that read, whatever the run could otherwise
 * have), what its prompt says, and that `view`, `grep` and `glob` read the sandbox's files.
 */
import type { AgentGitHubTools, AgentPlatformTools } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness, toolResultsSeen } from '../test-support/agent-harness.js';
import { WEB_SEARCH_TOOL_NAME } from './tools/web-search.js';

const harness = new AgentHarness();
beforeAll(async () => {
  await harness.startLlm();
});
afterAll(() => harness.close());

const readOnly = { toolset: 'read-only' } as const;
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });
const finish = call('finish', { message: 'done' });
const toolNames = (body: any): string[] => body.tools.map((tool: any) => tool.function.name);
const systemOf = (body: any): string => body.messages.find((message: any) => message.role === 'system').content;

/** Ports that fail the test if a write reaches them. */
const refuse = (what: string) => () => Promise.reject(new Error(`${what} must not be called by the read-only agent`));
const github: AgentGitHubTools = {
  repositories: ['acme/app'],
  thread: { repository: 'acme/app', number: 7 },
  comment: refuse('comment'),
  addLabels: refuse('addLabels'),
  createPullRequest: refuse('createPullRequest'),
};
const platform: AgentPlatformTools = {
  listAutomations: async () => [],
  listWebhookSources: async () => [],
  createAutomation: refuse('createAutomation'),
  updateAutomation: refuse('updateAutomation'),
  disableAutomation: refuse('disableAutomation'),
};

/** A sandbox holding a small repository (and a node_modules the search tools skip). */
async function repository(): Promise<string> {
  const sandboxId = await harness.sandbox();
  const files = [
    { path: 'src/app.ts', content: 'export const answer = 42;\n// TODO: explain the answer\n' },
    { path: 'src/lib/util.ts', content: 'export const twice = (n: number) => n * 2;\n' },
    { path: 'README.md', content: '# App\n\nTODO: write the docs\n' },
    { path: 'node_modules/dep/index.ts', content: '// TODO: never seen\n' },
  ];
  for await (const event of harness.runtime.exec(sandboxId, { command: 'true', files, timeoutMs: 10_000, maxOutputBytes: 1024 })) {
    if (event.type === 'exit' && event.result.exitCode !== 0) throw new Error('could not write the files');
  }
  return sandboxId;
}

describe('the read-only agent', () => {
  it('offers the model only tools that read: no terminal, no file edits, no GitHub or platform writes, no MCP; web search stays', async () => {
    await harness.startLlm({ turns: [finish] });
    const { outcome, records } = await harness.run(
      {
        settings: harness.settings({
          searchApiKey: 'tvly-read-only-test-key',
          mcpConfig: { sse_servers: [], shttp_servers: [], stdio_servers: [{ name: 'tools', command: 'npx', args: ['some-mcp-server'], env: {} }] },
        }),
        githubTools: github,
        platformTools: platform,
      },
      readOnly,
    );
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'done' });
    const offered = toolNames(harness.llm.requests[0]!.body);
    expect(offered).toEqual(['view', 'grep', 'glob', 'think', 'finish', 'list_automations', 'list_webhook_sources', WEB_SEARCH_TOOL_NAME]);
    for (const writer of [
      'terminal',
      'file_editor',
      'github_comment',
      'github_add_labels',
      'create_pull_request',
      'create_automation',
      'update_automation',
      'disable_automation',
    ]) {
      expect(offered).not.toContain(writer);
    }
    // The MCP server was not started, and the conversation says why.
    expect(records[0]!.event).toMatchObject({ kind: 'agent_event', data: { type: 'mcp_servers_skipped', servers: 1 } });
    const system = systemOf(harness.llm.requests[0]!.body);
    expect(system).toContain('You are read-only');
    expect(system).not.toContain('Use the terminal');
  });

  it('the full toolset (the default) still has the terminal and the editor, and its prompt says nothing of read-only', async () => {
    await harness.startLlm({ turns: [finish] });
    await harness.run({ githubTools: github });
    const offered = toolNames(harness.llm.requests[0]!.body);
    expect(offered).toEqual(expect.arrayContaining(['terminal', 'file_editor', 'github_comment']));
    expect(systemOf(harness.llm.requests[0]!.body)).not.toContain('read-only');
  });

  it('reads with view, grep and glob; a call to a tool it lacks is refused and nothing is written', async () => {
    const sandboxId = await repository();
    await harness.startLlm({
      turns: [
        call('view', { path: 'src/app.ts' }),
        call('view', { path: 'src' }),
        call('grep', { pattern: 'TODO', include: '*.{ts,md}' }),
        call('grep', { pattern: 'todo: WRITE', ignore_case: true, path: 'README.md' }),
        call('grep', { pattern: 'nowhere-to-be-found' }),
        call('grep', { pattern: '(unclosed' }),
        call('glob', { pattern: '**/*.ts' }),
        call('glob', { pattern: 'src/*.ts' }),
        call('terminal', { command: 'touch written.txt' }),
        call('file_editor', { command: 'create', path: 'written.txt', file_text: 'x' }),
        finish,
      ],
    });
    const { outcome, records } = await harness.run({ sandboxId }, readOnly);
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: 'done' });
    const seen = toolResultsSeen(harness.llm.requests.at(-1)!.body);

    expect(seen[0]).toContain('     1\texport const answer = 42;\n     2\t// TODO: explain the answer');
    expect(seen[1]).toContain('src/lib/util.ts');
    expect(seen[2]!.split('\n').sort()).toEqual(['README.md:3:TODO: write the docs', 'src/app.ts:2:// TODO: explain the answer']);
    expect(seen[3]).toBe('README.md:3:TODO: write the docs');
    expect(seen[4]).toBe('No lines match nowhere-to-be-found in the working directory.');
    expect(seen[5]).toMatch(/^grep failed: .*grep: /s);
    expect(seen[6]!.split('\n')).toEqual(['src/app.ts', 'src/lib/util.ts']);
    expect(seen[7]!.split('\n')).toEqual(['src/app.ts']);
    expect(seen[8]).toContain('There is no tool named "terminal"');
    expect(seen[9]).toContain('There is no tool named "file_editor"');

    // The actions are recorded in OpenHands' shape, with the tools' own kinds.
    const actions = records.filter((record) => record.event.kind === 'ActionEvent').map((record) => (record.event.data as any).action?.kind);
    expect(actions.slice(0, 8)).toEqual(['ViewAction', 'ViewAction', 'GrepAction', 'GrepAction', 'GrepAction', 'GrepAction', 'GlobAction', 'GlobAction']);

    // Nothing was written.
    let listing = '';
    for await (const event of harness.runtime.exec(sandboxId, { command: 'ls', timeoutMs: 10_000, maxOutputBytes: 4096 })) {
      if (event.type === 'stdout') listing += event.data;
    }
    expect(listing.split('\n').filter(Boolean).sort()).toEqual(['README.md', 'node_modules', 'src']);
  });
});
