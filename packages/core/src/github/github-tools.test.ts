import { describe, expect, it } from 'vitest';
import type { GitHubApi } from './github-api.js';
import { createAgentGitHubTools, type AgentThreadAction } from './github-tools.js';

/** A GitHub that answers the three calls the tools make, recording nothing else. */
const fakeApi = (): GitHubApi =>
  ({
    createComment: async (_repository: unknown, number: number) => ({ id: 7, url: `https://github.com/acme/app/issues/${number}#issuecomment-7` }),
    addLabels: async (_repository: unknown, _number: number, labels: string[]) => ['bug', ...labels],
  }) as unknown as GitHubApi;

describe('the agent’s GitHub tools', () => {
  it('tell of each comment posted and labels added (for the audit log), and of nothing refused', async () => {
    const told: AgentThreadAction[] = [];
    const tools = createAgentGitHubTools(
      { repositories: ['acme/app'], thread: { repository: 'acme/app', number: 12 }, onThreadAction: async (action) => void told.push(action) },
      'ghp_token',
      null,
      fakeApi,
    );
    await tools.comment({ body: 'Found it: a race in the cache.' });
    await tools.addLabels({ labels: ['triage'] });
    await expect(tools.comment({ body: 'elsewhere', repository: 'evil/repo', number: 1 })).rejects.toThrow('not one this run may act on');
    expect(told).toEqual([
      { type: 'comment', repository: 'acme/app', number: 12, url: 'https://github.com/acme/app/issues/12#issuecomment-7' },
      { type: 'labels', repository: 'acme/app', number: 12, labels: ['triage'] },
    ]);
  });
});
