import { describe, expect, it } from 'vitest';
import type { RepositoryRole } from '../github/github-api.js';
import { ActorTrust, ROLE_TTL_MS } from './actor-trust.js';
import { eventActor } from './event-actor.js';

const payload = (login: string, association: string | null, body = '@agent go', type = 'User') => ({
  action: 'created',
  repository: { full_name: 'acme/app' },
  issue: { number: 1 },
  comment: { id: 2, body, user: { login }, ...(association ? { author_association: association } : {}) },
  sender: { login, type },
});

function trustWith(roles: Record<string, RepositoryRole | Error>) {
  let now = Date.parse('2026-11-28T10:00:00Z');
  const asked: string[] = [];
  const trust = new ActorTrust({ now: () => new Date(now) }, async (_owner, repository, login) => {
    asked.push(`${repository}:${login}`);
    const role = roles[login] ?? 'none';
    if (role instanceof Error) throw role;
    return role;
  });
  return { trust, asked, advance: (ms: number) => (now += ms) };
}

const automation = (allowed: unknown = null) => ({ created_by: 'alice', allowed_actors: allowed as never });
const decide = (trust: ActorTrust, allowed: unknown, event: ReturnType<typeof payload>) =>
  trust.decide(automation(allowed), event, eventActor('issue_comment.created', event));

describe('ActorTrust', () => {
  it('writers: the owner at once, strangers at once, collaborators as GitHub says, kept for minutes', async () => {
    const { trust, asked, advance } = trustWith({ carol: 'write', rita: 'triage' });
    expect(await decide(trust, null, payload('octo', 'OWNER'))).toMatchObject({ trusted: true });
    expect(await decide(trust, null, payload('mallory', 'NONE'))).toMatchObject({
      trusted: false,
      why: expect.stringContaining('@mallory has no role on acme/app (GitHub says NONE)'),
    });
    expect(asked).toEqual([]);
    expect(await decide(trust, null, payload('carol', 'COLLABORATOR'))).toMatchObject({ trusted: true });
    expect(await decide(trust, null, payload('rita', 'COLLABORATOR'))).toMatchObject({ trusted: false, why: expect.stringContaining('the triage role') });
    expect(await decide(trust, null, payload('carol', 'COLLABORATOR'))).toMatchObject({ trusted: true });
    expect(asked).toEqual(['acme/app:carol', 'acme/app:rita']);
    advance(ROLE_TTL_MS + 1);
    await decide(trust, null, payload('carol', 'COLLABORATOR'));
    expect(asked).toHaveLength(3);
  });

  it('members, a list, anyone', async () => {
    const { trust } = trustWith({ rita: 'read' });
    expect(await decide(trust, 'members', payload('rita', null))).toMatchObject({ trusted: true });
    expect(await decide(trust, 'members', payload('zed', null))).toMatchObject({ trusted: false });
    expect(await decide(trust, ['Zed'], payload('zed', 'NONE'))).toMatchObject({ trusted: true });
    expect(await decide(trust, ['dave'], payload('zed', 'OWNER'))).toMatchObject({ trusted: false });
    expect(await decide(trust, 'anyone', payload('zed', 'NONE'))).toMatchObject({ trusted: true });
  });

  it('never a bot, never the platform itself, even for anyone', async () => {
    const { trust } = trustWith({});
    expect(await decide(trust, 'anyone', payload('helper[bot]', 'NONE', '@agent go', 'Bot'))).toMatchObject({
      trusted: false,
      why: expect.stringContaining('is a bot'),
    });
    expect(await decide(trust, 'anyone', payload('octo', 'OWNER', 'done @agent\n<!-- agent-platform run run_1 -->'))).toMatchObject({
      trusted: false,
      why: expect.stringContaining('the platform wrote this'),
    });
  });

  it('GitHub not answering refuses (fail closed), and is not asked again at once', async () => {
    const { trust, asked } = trustWith({ carol: new Error('GitHub could not be reached: timeout') });
    expect(await decide(trust, null, payload('carol', 'MEMBER'))).toMatchObject({ trusted: false, why: expect.stringContaining('could not ask GitHub') });
    await decide(trust, null, payload('carol', 'MEMBER'));
    expect(asked).toHaveLength(1);
  });
});
