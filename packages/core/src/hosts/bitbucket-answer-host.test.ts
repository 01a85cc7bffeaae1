/**
 * The Bitbucket adapter of the answer-back port against the Bitbucket stand-in, which checks every
 * request against Bitbucket's published OpenAPI description: where an event's thread is, the
 * run's comment posted, edited and found again by its marker (hidden as Bitbucket renders nothing
 * of it), replies in a comment's thread, Bitbucket's refusals as `BitbucketError`s without the
 * token, and a person's permission asked for trust.
 */
import { startBitbucketApi, type BitbucketApi as BitbucketStandIn } from '@agent-platform/testing/bitbucket-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMarker } from '../github/outcome-comment.js';
import { PLATFORM_MARKER } from '../github/platform-marker.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { AnswerChannel, AnswerThread } from '../ports/answer-host.js';
import { BitbucketError, bitbucketApiBaseUrl, createBitbucketApi } from './bitbucket-api.js';
import { createBitbucketAnswerHost } from './bitbucket-answer-host.js';
import { bitbucketMarkdown } from './bitbucket-markdown.js';
import { createBitbucketRoleLookup } from './bitbucket-roles.js';

const TOKEN = 'bb-unit-answer-token-93f1';
const NOT_ADMIN = 'bb-unit-writer-token-2b7c';

const settings = (token: string | null, host: string | null): AgentSettings =>
  ({ providerTokens: token ? { bitbucket: { token, host } } : {}, language: null }) as unknown as AgentSettings;

const commentEvent = (comment: Record<string, unknown>, pull = 1) => ({
  actor: { type: 'user', nickname: 'carol', account_id: '557058:carol' },
  repository: { type: 'repository', full_name: 'acme/app' },
  pullrequest: { type: 'pullrequest', id: pull, title: 'Crash on start', description: 'It crashes.' },
  comment: { type: 'pullrequest_comment', content: { raw: '@agent fix this' }, ...comment },
});

describe('Bitbucket on the answer-back port', () => {
  let bitbucket: BitbucketStandIn;
  let pull: number;
  const host = createBitbucketAnswerHost();

  const channelFor = (payload: unknown, eventKey = 'pullrequest:comment_created', token = TOKEN): AnswerChannel => {
    const found = host.threadOf(eventKey, payload);
    if ('none' in found) throw new Error(found.none);
    const channel = host.channel(found.thread, { userId: 'alice', settings: settings(token, bitbucket.url) });
    if ('none' in channel) throw new Error(channel.none);
    return channel;
  };

  beforeAll(async () => {
    bitbucket = await startBitbucketApi({ tokens: { [TOKEN]: { nickname: 'acme-agent', type: 'app_user' }, [NOT_ADMIN]: 'walt' } });
    bitbucket.addRepository('acme/app');
    bitbucket.addPermission('acme/app', 'walt', 'write');
    pull = bitbucket.addPullRequest('acme/app', { source: 'feature/crash' });
  });

  afterAll(async () => {
    await bitbucket?.close();
  });

  it('finds the pull request an event is about, and what it asks', () => {
    const found = host.threadOf('pullrequest:comment_created', commentEvent({ id: 5 }));
    expect(found).toEqual({
      thread: {
        host: 'bitbucket',
        label: 'acme/app#1',
        repository: 'acme/app',
        subject: { title: 'Crash on start', body: 'It crashes.' },
        locator: { repository: 'acme/app', pullRequest: 1, replyTo: null },
      },
    });
    const inline = host.threadOf('pullrequest:comment_created', commentEvent({ id: 6, inline: { path: 'src/app.ts', to: 3 } }));
    expect('thread' in inline && inline.thread.locator).toEqual({ repository: 'acme/app', pullRequest: 1, replyTo: 6 });
    const reply = host.threadOf('pullrequest:comment_created', commentEvent({ id: 7, parent: { id: 5 } }));
    expect('thread' in reply && reply.thread.locator).toEqual({ repository: 'acme/app', pullRequest: 1, replyTo: 7 });
    expect(host.threadOf('pullrequest:created', { repository: { full_name: 'acme/app' }, pullrequest: { id: 3, title: 'Add X' } })).toMatchObject({
      thread: { label: 'acme/app#3', subject: { title: 'Add X', body: '' } },
    });
    expect(host.threadOf('repo:push', { repository: { full_name: 'acme/app' } })).toEqual({ none: expect.stringContaining('no pull request') });
    expect(host.threadOf('issue:comment_created', { repository: { full_name: 'acme/app' }, issue: { id: 2 } })).toEqual({
      none: expect.stringContaining('issues are not answered'),
    });
    expect(host.threadOf('pullrequest:created', { pullrequest: { id: 3 } })).toEqual({ none: 'the Bitbucket event names no repository' });
  });

  it('handles the deliveries of Bitbucket sources only', () => {
    expect([host.handles('bitbucket'), host.handles('bitbucket-eu'), host.handles('github'), host.handles('bitbucketx')]).toEqual([true, true, false, false]);
  });

  it('says why it cannot answer without the owner’s token, or with a host that is no URL', () => {
    const found = host.threadOf('pullrequest:comment_created', commentEvent({ id: 5 })) as { thread: AnswerThread };
    expect(host.channel(found.thread, { userId: 'alice', settings: settings(null, null) })).toEqual({
      none: expect.stringContaining('no Bitbucket token is stored'),
    });
    expect(host.channel(found.thread, { userId: 'alice', settings: settings(TOKEN, 'http://bitbucket.example.com') })).toEqual({
      none: expect.stringContaining('allowed only for a loopback host'),
    });
  });

  it('acknowledges with its comment (no reaction), then posts, edits and finds the run’s comment', async () => {
    const channel = channelFor(commentEvent({ id: 5 }, pull));
    await channel.acknowledge();
    expect(bitbucket.requests).toEqual([]);

    const marker = runMarker('run-bb-1');
    const posted = await channel.post(`${marker}\nOn it: **Fix on request**.\n`);
    expect(posted.url).toBe(`${bitbucket.url}/acme/app/pull-requests/${pull}#comment-${posted.id}`);
    const [stored] = bitbucket.comments('acme/app', pull);
    // Hidden as a link reference definition: Bitbucket escapes HTML, and renders nothing of it.
    expect(stored?.raw).toBe(`[//]: # "${marker}"\nOn it: **Fix on request**.\n`);
    expect(stored?.parentId).toBeNull();

    const since = new Date(Date.now() - 60_000).toISOString();
    expect(await channel.find(marker, since)).toEqual(posted);
    expect(await channel.find(runMarker('run-bb-other'), since)).toBeNull();
    expect(await channel.find(marker, new Date(Date.now() + 60_000).toISOString())).toBeNull();

    expect(await channel.edit(posted.id, `${marker}\nDone.`)).toEqual(posted);
    expect(bitbucket.comments('acme/app', pull).map((comment) => comment.raw)).toEqual([`[//]: # "${marker}"\nDone.`]);
    // Someone deleted it: the edit says so, for the reporter to post anew.
    bitbucket.state.comments.delete(Number(posted.id));
    expect(await channel.edit(posted.id, 'again')).toBeNull();
    expect(bitbucket.requests.every((request) => request.auth === 'bearer')).toBe(true);
    expect(bitbucket.violations).toEqual([]);
  });

  it('answers an inline comment or a reply in its own thread', async () => {
    const asked = bitbucket.addComment('acme/app', pull, { raw: '@agent why?', user: 'carol' });
    const channel = channelFor(commentEvent({ id: asked, inline: { path: 'src/app.ts', to: 3 } }, pull));
    const posted = await channel.post('Because.');
    expect(bitbucket.comments('acme/app', pull).find((comment) => comment.id === posted.id)?.parentId).toBe(asked);
    expect(bitbucket.violations).toEqual([]);
  });

  it('turns Bitbucket’s refusals into BitbucketErrors without the token', async () => {
    const stranger = channelFor(commentEvent({ id: 5 }, pull), 'pullrequest:comment_created', 'bb-unknown-token-6f6f');
    const refused = await stranger.post('hello').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BitbucketError);
    expect(refused).toMatchObject({ host: 'bitbucket', status: 401, transient: false });
    expect((refused as Error).message).toContain('the stored Bitbucket token was refused');
    expect((refused as Error).message).not.toContain('bb-unknown-token-6f6f');

    const gone = channelFor(commentEvent({ id: 5 }, 999));
    await expect(gone.post('hello')).rejects.toMatchObject({ status: 404, message: expect.stringContaining('Pull request 999 not found') });

    const down = createBitbucketApi(TOKEN, 'http://127.0.0.1:9');
    const unreachable = await down.createComment({ workspace: 'acme', slug: 'app' }, 1, 'x').catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ status: null, transient: true });
    expect((unreachable as Error).message).toContain('Bitbucket could not be reached');
  });

  it('gives the agent its Bitbucket tools in the event’s pull request, with the owner’s token', async () => {
    const found = host.threadOf('pullrequest:comment_created', commentEvent({ id: 5 }, pull)) as { thread: AnswerThread };
    const actions: unknown[] = [];
    const input = {
      thread: found.thread,
      repositories: ['acme/app', 'https://bitbucket.org/acme/lib.git', 'not a repository'],
      pullRequest: null,
      onPullRequest: async () => {},
      onThreadAction: async (action: unknown) => void actions.push(action),
    };
    expect(host.agentTools?.({ ...input, owner: { userId: 'alice', settings: settings(null, null) } })).toBeNull();
    const tools = host.agentTools?.({ ...input, owner: { userId: 'alice', settings: settings(TOKEN, bitbucket.url) } });
    expect(tools).toMatchObject({ host: 'bitbucket', repositories: ['acme/app', 'acme/lib'], thread: { repository: 'acme/app', number: pull } });
    expect(tools?.addLabels).toBeUndefined();
    const posted = await tools?.comment({ body: 'Looking into it.' });
    expect(actions).toEqual([{ type: 'comment', repository: 'acme/app', number: pull, url: posted?.url }]);
    expect(bitbucket.violations).toEqual([]);
  });

  it('asks Bitbucket for a person’s permission, and fails closed when the token may not', async () => {
    const walt = bitbucket.addUser('walt');
    const rita = bitbucket.addUser('rita');
    bitbucket.addPermission('acme/app', 'rita', 'admin');
    const lookup = createBitbucketRoleLookup({ settingsOf: async (userId) => settings(userId === 'alice' ? TOKEN : NOT_ADMIN, bitbucket.url) });
    expect(await lookup('alice', 'acme/app', { login: 'walt', id: walt.accountId })).toBe('write');
    expect(await lookup('alice', 'acme/app', { login: 'rita', id: rita.uuid })).toBe('admin');
    expect(await lookup('alice', 'acme/app', { login: 'mallory', id: '557058:mallory' })).toBe('none');
    await expect(lookup('alice', 'acme/app', { login: 'walt', id: null })).rejects.toThrow('names no Bitbucket account id');
    // Only a repository admin may read permissions: a writer's token cannot tell, so nobody is trusted through it.
    const refused = await lookup('bob', 'acme/app', { login: 'walt', id: walt.accountId }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403 });
    expect((refused as Error).message).not.toContain(NOT_ADMIN);
    const none = createBitbucketRoleLookup({ settingsOf: async () => settings(null, null) });
    await expect(none('alice', 'acme/app', { login: 'walt', id: walt.accountId })).rejects.toThrow('no Bitbucket token is stored');
    expect(bitbucket.violations).toEqual([]);
  });
});

describe('Bitbucket’s API address and Markdown', () => {
  it('is bitbucket.org’s API for no host, and HOST/2.0 for another', () => {
    expect(bitbucketApiBaseUrl(null)).toBe('https://api.bitbucket.org/2.0');
    expect(bitbucketApiBaseUrl('bitbucket.org')).toBe('https://api.bitbucket.org/2.0');
    expect(bitbucketApiBaseUrl('https://api.bitbucket.org/2.0/')).toBe('https://api.bitbucket.org/2.0');
    expect(bitbucketApiBaseUrl('bitbucket-proxy.example.com')).toBe('https://bitbucket-proxy.example.com/2.0');
    expect(bitbucketApiBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/2.0');
    expect(() => bitbucketApiBaseUrl('http://bitbucket.example.com')).toThrow('use https');
  });

  it('hides the platform’s marker lines, and leaves the rest as written', () => {
    expect(bitbucketMarkdown('Fixed.\n\n<!-- agent-platform -->')).toBe('Fixed.\n\n[//]: # "<!-- agent-platform -->"');
    expect(bitbucketMarkdown(`a ${PLATFORM_MARKER} -->`)).toBe(`a ${PLATFORM_MARKER} -->`);
    expect(bitbucketMarkdown('no marker <b>here</b>')).toBe('no marker <b>here</b>');
  });
});
