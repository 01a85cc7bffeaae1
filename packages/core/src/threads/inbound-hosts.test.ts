import { describe, expect, it } from 'vitest';
import type { RepositoryRole } from '../github/github-api.js';
import { eventThread } from '../github/event-thread.js';
import { ActorTrust, needsTrust } from './actor-trust.js';
import { eventActor } from './event-actor.js';
import { actorOf, inboundHostName, inboundHostOf } from './inbound-hosts.js';
import { threadCommand } from './thread-command.js';
import { threadKey, threadKeyOf } from './thread-key.js';
import { isThreadAutomation, MENTION_EVENTS, triggerEvents } from './thread-trigger.js';

const gitlabNote = (note: string, username = 'carol') => ({
  object_kind: 'note',
  user: { id: 42, username, name: 'Carol' },
  project: { id: 5, path_with_namespace: 'acme/api' },
  object_attributes: { id: 7, note, noteable_type: 'Issue', action: 'create', system: false },
  issue: { id: 90, iid: 3, title: 'Crash' },
});
const bitbucketComment = (raw: string, nickname = 'emma') => ({
  actor: { type: 'user', nickname, account_id: '557058:emma-id', display_name: 'Emma' },
  repository: { full_name: 'acme/web' },
  pullrequest: { id: 12, title: 'Fix' },
  comment: { id: 17, content: { raw } },
});
const slackMention = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'event_callback',
  team_id: 'T0001',
  api_app_id: 'A0APP',
  event_id: 'Ev1',
  authorizations: [{ team_id: 'T0001', user_id: 'U0BOT', is_bot: true }],
  event: { type: 'app_mention', user: 'U0ALICE', text, ts: '1.000100', channel: 'C0DEV', team: 'T0001', ...extra },
});
const githubComment = {
  action: 'created',
  repository: { full_name: 'Acme/App' },
  issue: { number: 4 },
  comment: { id: 99, body: '@agent go', user: { login: 'octo' }, author_association: 'OWNER' },
  sender: { login: 'octo', type: 'User' },
};

describe('hosts by source', () => {
  it('github is GitHub; a source named after a host is that host’s; any other is custom', () => {
    expect(inboundHostName('github')).toBe('github');
    expect(inboundHostName('gitlab')).toBe('gitlab');
    expect(inboundHostName('gitlab-eu')).toBe('gitlab');
    expect(inboundHostName('bitbucket')).toBe('bitbucket');
    expect(inboundHostName('slack-eng')).toBe('slack');
    expect(inboundHostName('gitlabber')).toBeNull();
    expect(inboundHostName('linear')).toBeNull();
    expect(actorOf('linear', 'Issue', { sender: { login: 'x' } })).toEqual({ login: null, bot: false, association: null, text: null, comment: null });
  });

  it('reads GitHub exactly as before: the same actor and thread key', () => {
    const github = inboundHostOf('github');
    expect(github?.actorOf('issue_comment.created', githubComment)).toEqual(eventActor('issue_comment.created', githubComment));
    const found = eventThread('issue_comment.created', githubComment);
    expect('thread' in found && threadKey(found.thread.repository, found.thread.number)).toBe('github:acme/app#4');
    expect(threadKeyOf('github', 'issue_comment.created', githubComment)).toBe('github:acme/app#4');
    expect(github?.threadOf('issue_comment.created', githubComment)).toEqual({
      thread: {
        host: 'github',
        key: 'github:acme/app#4',
        label: 'Acme/App#4',
        repository: 'Acme/App',
        at: { number: 4, comment_kind: 'issue_comment', comment_id: 99 },
      },
    });
  });

  it('keys threads on every host, and none for a custom source', () => {
    expect(threadKeyOf('gitlab', 'note.create', gitlabNote('hi'))).toBe('gitlab:acme/api#3');
    expect(threadKeyOf('bitbucket', 'pullrequest:comment_created', bitbucketComment('hi'))).toBe('bitbucket:acme/web/pull-requests/12');
    expect(threadKeyOf('slack', 'app_mention', slackMention('<@U0BOT> hi'))).toBe('slack:T0001/C0DEV/1.000100');
    expect(threadKeyOf('linear', 'Issue', gitlabNote('hi'))).toBeNull();
  });
});

describe('mention triggers on every host', () => {
  it('bring their host’s events when they name none', () => {
    expect(triggerEvents({ mention: '@agent', source: 'github' })).toEqual([...MENTION_EVENTS]);
    expect(triggerEvents({ mention: '@agent' })).toEqual([...MENTION_EVENTS]);
    expect(triggerEvents({ mention: '@agent', source: 'gitlab' })).toEqual(['note.create', 'issue.open', 'merge_request.open']);
    expect(triggerEvents({ mention: '@agent', source: 'bitbucket-acme' })).toEqual([
      'pullrequest:comment_created',
      'issue:comment_created',
      'pullrequest:created',
      'issue:created',
    ]);
    expect(triggerEvents({ mention: '@agent', source: 'slack' })).toEqual(['app_mention', 'block_actions']);
    expect(triggerEvents({ mention: '@agent', source: 'gitlab', on: 'note.*' })).toBe('note.*');
  });

  it('are thread automations on a host’s source, never on a custom one', () => {
    const automation = (source: string) => ({
      trigger: { type: 'event' as const, source, on: ['x'], filter: null, mention: '@agent' },
      report_to_github: false,
    });
    for (const source of ['github', 'gitlab', 'bitbucket', 'slack-eng']) expect(isThreadAutomation(automation(source)), source).toBe(true);
    expect(isThreadAutomation(automation('linear'))).toBe(false);
    const trusted = (source: string, eventKey: string) =>
      needsTrust({ trigger: { ...automation(source).trigger, mention: null }, allowed_actors: null }, eventKey);
    expect(trusted('gitlab', 'note.create')).toBe(true);
    expect(trusted('gitlab', 'push')).toBe(false);
    expect(trusted('bitbucket', 'pullrequest:comment_created')).toBe(true);
    expect(trusted('slack', 'app_mention')).toBe(true);
    expect(trusted('slack', 'block_actions')).toBe(true);
    expect(trusted('linear', 'Comment')).toBe(false);
  });

  it('match a GitLab note’s body and a Bitbucket comment’s content.raw, as written', () => {
    const read = (source: string, key: string, payload: unknown, mention = '@agent') => threadCommand({ mention }, key, payload, actorOf(source, key, payload));
    expect(read('gitlab', 'note.create', gitlabNote('@agent please fix'))).toEqual({ kind: 'work' });
    expect(read('gitlab', 'note.create', gitlabNote('@agent stop'))).toEqual({ kind: 'stop' });
    expect(read('gitlab', 'note.create', gitlabNote('/approve'))).toEqual({ kind: 'approve', reason: '' });
    expect(read('gitlab', 'note.create', gitlabNote('@agentx please')).kind).toBe('none');
    expect(read('bitbucket', 'pullrequest:comment_created', bitbucketComment('@agent rebase please'))).toEqual({ kind: 'work' });
    // A mention picked from Bitbucket's autocomplete is written as the account id.
    expect(read('bitbucket', 'pullrequest:comment_created', bitbucketComment('@{557058:bot-id} rebase'), '@{557058:bot-id}')).toEqual({ kind: 'work' });
    expect(read('bitbucket', 'pullrequest:comment_created', bitbucketComment('nothing for you')).kind).toBe('none');
  });

  it('read /approve, /reject and stop in a Bitbucket comment’s content.raw as on GitHub', () => {
    const read = (raw: string, trigger: { mention?: string } = { mention: '@agent' }) =>
      threadCommand(trigger, 'pullrequest:comment_created', bitbucketComment(raw), actorOf('bitbucket', 'pullrequest:comment_created', bitbucketComment(raw)));
    expect(read('/approve')).toEqual({ kind: 'approve', reason: '' });
    expect(read('/approve looks right\nthanks')).toEqual({ kind: 'approve', reason: 'looks right' });
    expect(read('/reject not on main')).toEqual({ kind: 'reject', reason: 'not on main' });
    expect(read('/stop')).toEqual({ kind: 'stop' });
    expect(read('@agent stop')).toEqual({ kind: 'stop' });
    expect(read('@agent stop.')).toEqual({ kind: 'stop' });
    expect(read('@agent stop using tabs')).toEqual({ kind: 'work' });
    expect(read('@agent /approve go ahead')).toEqual({ kind: 'approve', reason: 'go ahead' });
    // Quoted or in code, an earlier command is not a new one.
    expect(read('> /approve\n\nnot yet').kind).toBe('none');
    expect(read('`/approve`').kind).toBe('none');
    // An automation without a handle (a filter decides): "@someone stop" stops, "@someone /reject" answers.
    expect(read('@agent stop', {})).toEqual({ kind: 'stop' });
    expect(read('@agent /reject too risky', {})).toEqual({ kind: 'reject', reason: 'too risky' });
  });

  it('read "@agent /approve" in a GitLab note (a note that starts with /approve is GitLab’s own quick action on a merge request)', () => {
    const read = (note: string) => threadCommand({ mention: '@agent' }, 'note.create', gitlabNote(note), actorOf('gitlab', 'note.create', gitlabNote(note)));
    expect(read('@agent /approve')).toEqual({ kind: 'approve', reason: '' });
    expect(read('@agent /reject wrong branch')).toEqual({ kind: 'reject', reason: 'wrong branch' });
    expect(read('/reject wrong branch')).toEqual({ kind: 'reject', reason: 'wrong branch' });
    expect(read('/stop')).toEqual({ kind: 'stop' });
    expect(read('@agent please approve the plan')).toEqual({ kind: 'work' });
  });

  it('match a Slack app_mention by the app’s own mention (<@U…>), whatever the handle', () => {
    const read = (text: string) => threadCommand({ mention: '@agent' }, 'app_mention', slackMention(text), actorOf('slack', 'app_mention', slackMention(text)));
    expect(read('<@U0BOT> the build is red')).toEqual({ kind: 'work' });
    expect(read('thanks <@U0BOT> stop')).toEqual({ kind: 'stop' });
    expect(read('<@U0SOMEONE> not the app')).toMatchObject({ kind: 'none' });
  });
});

describe('trust on every host', () => {
  const automation = (allowed: unknown = null) => ({ created_by: 'owner', allowed_actors: allowed as never });

  it('GitLab and Bitbucket: writers and members are asked of the host’s lookup, kept for minutes', async () => {
    const asked: string[] = [];
    const gitlab = async (_owner: string, repository: string, actor: { login: string; id: string | null }): Promise<RepositoryRole> => {
      asked.push(`${repository}:${actor.login}:${actor.id}`);
      return actor.login === 'carol' ? 'write' : 'read';
    };
    const trust = new ActorTrust({ now: () => new Date('2026-11-29T10:00:00Z') }, null, { gitlab });
    const decide = (username: string, allowed: unknown = null) =>
      trust.decide(automation(allowed), {}, actorOf('gitlab', 'note.create', gitlabNote('@agent go', username)));
    expect(await decide('carol')).toEqual({ trusted: true, actor: 'carol' });
    expect(await decide('carol')).toEqual({ trusted: true, actor: 'carol' });
    expect(await decide('rita')).toMatchObject({
      trusted: false,
      why: '@rita has the read role on acme/api; this automation takes commands from people with write permission on the repository (allowed_actors: writers)',
    });
    expect(await decide('rita', 'members')).toEqual({ trusted: true, actor: 'rita' });
    expect(asked).toEqual(['acme/api:carol:42', 'acme/api:rita:42']);
    const bitbucket = trust.decide(automation(), {}, actorOf('bitbucket', 'pullrequest:comment_created', bitbucketComment('@agent go')));
    expect(await bitbucket).toMatchObject({
      trusted: false,
      why: "could not ask Bitbucket for @emma's role on acme/web: no way to ask this host is configured",
    });
  });

  it('a list names people by login or the host’s id; anyone is anyone; bots and the platform never', async () => {
    const trust = new ActorTrust({ now: () => new Date() }, null);
    const emma = actorOf('bitbucket', 'pullrequest:comment_created', bitbucketComment('@agent go'));
    expect(await trust.decide(automation(['557058:emma-id']), {}, emma)).toEqual({ trusted: true, actor: 'emma' });
    expect(await trust.decide(automation(['Emma']), {}, emma)).toEqual({ trusted: true, actor: 'emma' });
    expect(await trust.decide(automation(['john.smith']), {}, emma)).toMatchObject({ trusted: false });
    expect(await trust.decide(automation('anyone'), {}, emma)).toEqual({ trusted: true, actor: 'emma' });
    const bot = actorOf('gitlab', 'note.create', gitlabNote('@agent go', 'project_5_bot_1a2b'));
    expect(await trust.decide(automation('anyone'), {}, bot)).toMatchObject({
      trusted: false,
      why: '@project_5_bot_1a2b is a bot: bots never command the agent',
    });
    const own = actorOf('slack', 'message.channels', {
      ...slackMention('done'),
      event: { type: 'message', user: 'U0BOT', text: 'done', ts: '2.0', channel: 'C0DEV', app_id: 'A0APP' },
    });
    expect(await trust.decide(automation('anyone'), {}, own)).toMatchObject({ trusted: false });
  });

  it('Slack: the people of the event’s workspace are its writers and members; another workspace’s are not', async () => {
    const trust = new ActorTrust({ now: () => new Date() }, null);
    const alice = actorOf('slack', 'app_mention', slackMention('<@U0BOT> go'));
    expect(await trust.decide(automation(), {}, alice)).toEqual({ trusted: true, actor: 'U0ALICE' });
    const guest = actorOf('slack', 'app_mention', slackMention('<@U0BOT> go', { user: 'U0EXT', user_team: 'T0OTHER' }));
    expect(await trust.decide(automation('members'), {}, guest)).toMatchObject({ trusted: false, why: expect.stringContaining('not in the Slack workspace') });
    expect(await trust.decide(automation(['U0EXT']), {}, guest)).toEqual({ trusted: true, actor: 'U0EXT' });
  });
});
