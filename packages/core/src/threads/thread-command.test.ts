import { describe, expect, it } from 'vitest';
import { eventActor } from './event-actor.js';
import { spokenText, threadCommand } from './thread-command.js';

const comment = (body: string, login = 'carol') => ({
  action: 'created',
  issue: { number: 3 },
  comment: { id: 9, body, user: { login }, author_association: 'COLLABORATOR' },
  sender: { login, type: 'User' },
});
const read = (trigger: { mention?: string | null; label?: string | null }, key: string, payload: unknown) =>
  threadCommand(trigger, key, payload, eventActor(key, payload));

describe('threadCommand', () => {
  const mention = { mention: '@agent' };

  it('a mention is a whole word in any case, outside code and quotes', () => {
    expect(read(mention, 'issue_comment.created', comment('@agent fix it'))).toEqual({ kind: 'work' });
    expect(read(mention, 'issue_comment.created', comment('please, @Agent: fix it'))).toEqual({ kind: 'work' });
    expect(read(mention, 'issue_comment.created', comment('@agents fix it')).kind).toBe('none');
    expect(read(mention, 'issue_comment.created', comment('mail me@agent.example')).kind).toBe('none');
    expect(read(mention, 'issue_comment.created', comment('see `@agent fix`')).kind).toBe('none');
    expect(read(mention, 'issue_comment.created', comment('```\n@agent fix\n```\nthanks')).kind).toBe('none');
    expect(read(mention, 'issue_comment.created', comment('> @agent fix it\n\nagreed')).kind).toBe('none');
  });

  it('stop, approve and reject', () => {
    expect(read(mention, 'issue_comment.created', comment('@agent stop'))).toEqual({ kind: 'stop' });
    expect(read(mention, 'issue_comment.created', comment('@agent stop.'))).toEqual({ kind: 'stop' });
    expect(read(mention, 'issue_comment.created', comment('@agent stop using tabs everywhere'))).toEqual({ kind: 'work' });
    expect(read(mention, 'issue_comment.created', comment('/stop'))).toEqual({ kind: 'stop' });
    expect(read(mention, 'issue_comment.created', comment('/approve'))).toEqual({ kind: 'approve', reason: '' });
    expect(read(mention, 'issue_comment.created', comment('/reject not that file'))).toEqual({ kind: 'reject', reason: 'not that file' });
    // A host that names the held action an answer is for (Slack's buttons): the command carries it.
    const click = { login: 'U0CAROL', bot: false, association: null, text: '/approve', comment: null, host: 'slack' as const, answers: 'evt_9' };
    expect(threadCommand(mention, 'block_actions', {}, click)).toEqual({ kind: 'approve', reason: '', action: 'evt_9' });
  });

  it('a label trigger: its label added works, removed stops, another label is none', () => {
    const label = { label: 'agent' };
    const labeled = (action: string, name: string) => ({ action, label: { name }, issue: { number: 3 }, sender: { login: 'carol' } });
    expect(read(label, 'issues.labeled', labeled('labeled', 'agent'))).toEqual({ kind: 'work' });
    expect(read(label, 'pull_request.unlabeled', labeled('unlabeled', 'agent'))).toEqual({ kind: 'stop' });
    expect(read(label, 'issues.labeled', labeled('labeled', 'Agent')).kind).toBe('none');
    expect(read(label, 'issue_comment.created', comment('@agent fix')).kind).toBe('none');
    expect(read(label, 'issue_comment.created', comment('/approve'))).toEqual({ kind: 'approve', reason: '' });
  });

  it('an automation without a handle (report_to_github and a filter): a comment that is only "@someone stop" stops it', () => {
    expect(read({}, 'issue_comment.created', comment('@agent stop'))).toEqual({ kind: 'stop' });
    expect(read({}, 'issue_comment.created', comment('@agent stop the build from failing'))).toEqual({ kind: 'work' });
    expect(read({}, 'issue_comment.created', comment('@agent fix it'))).toEqual({ kind: 'work' });
  });

  it('spokenText drops code and quotes', () => {
    expect(spokenText('a `b` c\n> d\ne')).toBe('a  c\ne');
  });
});
