/**
 * The agent's Bitbucket tools against the Bitbucket stand-in (checked against Bitbucket's OpenAPI
 * description) with a real git server behind it: a comment on the run's pull request, a pull
 * request opened from a branch the git server has, each marked as the platform's; out of scope,
 * bad input and Bitbucket's refusals as `PlatformError`s without the token.
 */
import { startBitbucketApi, type BitbucketApi as BitbucketStandIn } from '@agent-platform/testing/bitbucket-api';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentThreadAction, OpenedPullRequest } from '../github/github-tools.js';
import { runRepository } from '../agents/repository-target.js';
import { PLATFORM_MARKER } from '../github/platform-marker.js';
import { PlatformError } from '../kernel/errors.js';
import { bitbucketRepositoryTarget } from '../agents/bitbucket-repository.js';
import { createBitbucketAgentTools } from './bitbucket-tools.js';

const TOKEN = 'bb-unit-tools-token-4e0a';

describe('the agent’s Bitbucket tools', () => {
  let git: GitServer;
  let bitbucket: BitbucketStandIn;
  let pull: number;

  beforeAll(async () => {
    git = await startGitServer({ token: TOKEN, username: 'x-token-auth' });
    await git.createRepository('acme/app', { branches: { 'agent/fix-crash': { 'fix.txt': 'fixed\n' } } });
    bitbucket = await startBitbucketApi({ tokens: { [TOKEN]: { nickname: 'acme-agent', type: 'app_user' } }, git });
    bitbucket.addRepository('acme/app');
    bitbucket.addRepository('acme/other');
    pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash' });
  });

  afterAll(async () => {
    await bitbucket?.close();
    await git?.close();
  });

  it('comment on the run’s pull request, marked as the platform’s, and tell of it', async () => {
    const told: AgentThreadAction[] = [];
    const tools = createBitbucketAgentTools(
      { repositories: ['acme/app'], thread: { repository: 'acme/app', number: pull }, onThreadAction: async (action) => void told.push(action) },
      { token: TOKEN, host: bitbucket.url },
    );
    expect(tools.host).toBe('bitbucket');
    expect(tools.addLabels).toBeUndefined();
    const posted = await tools.comment({ body: 'Found it: a race in the cache.' });
    expect(bitbucket.comments('acme/app', pull).map((comment) => comment.raw)).toEqual([`Found it: a race in the cache.\n\n[//]: # "${PLATFORM_MARKER} -->"`]);
    expect(told).toEqual([{ type: 'comment', repository: 'acme/app', number: pull, url: posted.url }]);
    expect(bitbucket.violations).toEqual([]);
  });

  it('open a pull request from the agent’s branch into the main branch, once per thread', async () => {
    const opened: OpenedPullRequest[] = [];
    const tools = createBitbucketAgentTools(
      { repositories: ['acme/app'], thread: null, onPullRequest: async (pr) => void opened.push(pr) },
      { token: TOKEN, host: bitbucket.url },
    );
    const created = await tools.createPullRequest?.({ title: 'Fix the crash on start', head: 'agent/fix-crash', body: 'Fixes the crash.' });
    const [stored] = bitbucket.pulls('acme/app').filter((pr) => pr.source === 'agent/fix-crash');
    expect(stored).toMatchObject({ title: 'Fix the crash on start', destination: 'main', description: `Fixes the crash.\n\n[//]: # "${PLATFORM_MARKER} -->"` });
    expect(created).toEqual({ number: stored?.id, url: `${bitbucket.url}/acme/app/pull-requests/${stored?.id}` });
    expect(opened).toEqual([{ repository: 'acme/app', number: stored?.id, url: created?.url, head: 'agent/fix-crash' }]);

    const again = createBitbucketAgentTools(
      { repositories: ['acme/app'], thread: null, pullRequest: { repository: 'acme/app', number: stored?.id ?? 0, url: null, branch: 'agent/fix-crash' } },
      { token: TOKEN, host: bitbucket.url },
    );
    await expect(again.createPullRequest?.({ title: 'Twice', head: 'agent/fix-crash' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(bitbucket.violations).toEqual([]);
  });

  it('refuse what is out of scope or malformed, and tell Bitbucket’s refusals without the token', async () => {
    const tools = createBitbucketAgentTools(
      { repositories: ['acme/app'], thread: { repository: 'acme/app', number: pull } },
      { token: TOKEN, host: bitbucket.url },
    );
    await expect(tools.comment({ repository: 'acme/other', number: 1, body: 'x' })).rejects.toThrow('not one this run may act on');
    await expect(tools.comment({ repository: 'not a repo', body: 'x' })).rejects.toThrow('is not a Bitbucket repository');
    await expect(tools.comment({ body: '  ' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(tools.createPullRequest?.({ title: 'x', head: '--upload-pack=evil' })).rejects.toThrow('head must be a branch name');
    const missing = await tools.createPullRequest?.({ title: 'x', head: 'no-such-branch' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PlatformError);
    expect(missing).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('branch not found: no-such-branch') });
    const stranger = createBitbucketAgentTools(
      { repositories: ['acme/app'], thread: { repository: 'acme/app', number: pull } },
      { token: 'bb-wrong-1234', host: bitbucket.url },
    );
    const refused = await stranger.comment({ body: 'x' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST' });
    expect((refused as Error).message).not.toContain('bb-wrong-1234');
    expect(bitbucket.violations).toEqual([]);
  });
});

describe('a Bitbucket run’s repository', () => {
  it('is checked out at the pull request’s source branch, the pushed branch, or the default branch', () => {
    const repository = { full_name: 'acme/app' };
    expect(
      bitbucketRepositoryTarget({ repository, pullrequest: { id: 3, source: { branch: { name: 'feature/x' }, repository: { full_name: 'acme/app' } } } }),
    ).toEqual({ repository: 'acme/app', provider: 'bitbucket', branch: 'feature/x' });
    // A fork's branch is not this repository's.
    expect(
      bitbucketRepositoryTarget({ repository, pullrequest: { id: 3, source: { branch: { name: 'main' }, repository: { full_name: 'eve/app' } } } }),
    ).toEqual({
      repository: 'acme/app',
      provider: 'bitbucket',
      branch: null,
    });
    expect(bitbucketRepositoryTarget({ repository, push: { changes: [{ new: { type: 'branch', name: 'release' } }] } })).toMatchObject({ branch: 'release' });
    expect(bitbucketRepositoryTarget({ repository, push: { changes: [{ new: null }] } })).toMatchObject({ branch: null });
    expect(bitbucketRepositoryTarget({ push: {} })).toBeNull();
  });

  it('is what a run of a Bitbucket source clones, with the owner’s Bitbucket token', () => {
    const payload = JSON.stringify({ repository: { full_name: 'acme/app' }, pullrequest: { id: 3, source: { branch: { name: 'feature/x' } } } });
    expect(runRepository(null, 'bitbucket', payload)).toEqual({ repository: 'acme/app', provider: 'bitbucket', branch: 'feature/x' });
    expect(runRepository('acme/lib', 'bitbucket-eu', payload)).toEqual({ repository: 'acme/lib', provider: 'bitbucket' });
  });
});
