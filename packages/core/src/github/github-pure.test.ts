import { describe, expect, it } from 'vitest';
import { githubApiBaseUrl } from './api-base-url.js';
import { eventThread } from './event-thread.js';
import { outcomeComment, runMarker } from './outcome-comment.js';
import { githubToolScope } from './tool-scope.js';
import type { RunRecord } from '../schemas/run.js';

describe('githubApiBaseUrl', () => {
  it('is api.github.com for GitHub itself', () => {
    for (const host of [null, '', 'github.com', 'https://github.com', 'api.github.com', 'https://api.github.com/'])
      expect(githubApiBaseUrl(host)).toBe('https://api.github.com');
  });
  it('is /api/v3 on a GitHub Enterprise Server host, however it is named', () => {
    expect(githubApiBaseUrl('github.example.com')).toBe('https://github.example.com/api/v3');
    expect(githubApiBaseUrl('https://github.example.com/')).toBe('https://github.example.com/api/v3');
    expect(githubApiBaseUrl('https://github.example.com/api/v3')).toBe('https://github.example.com/api/v3');
    expect(githubApiBaseUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/api/v3');
  });
  it('refuses plain http beyond loopback, and what is no host', () => {
    expect(() => githubApiBaseUrl('http://github.example.com')).toThrow(/allowed only for a loopback host/);
    expect(() => githubApiBaseUrl('https://exa mple')).toThrow(/not a host name or URL/);
  });
});

const repository = { full_name: 'acme/app' };

describe('eventThread', () => {
  it('reacts to the comment that asked, and answers in its issue', () => {
    expect(eventThread('issue_comment.created', { repository, issue: { number: 12 }, comment: { id: 99 } })).toEqual({
      thread: { repository: 'acme/app', number: 12, reactTo: { kind: 'issue_comment', id: 99 } },
    });
  });
  it('a review comment: reacts to it, answers in its pull request', () => {
    expect(eventThread('pull_request_review_comment.created', { repository, pull_request: { number: 5 }, comment: { id: 7 } })).toEqual({
      thread: { repository: 'acme/app', number: 5, reactTo: { kind: 'review_comment', id: 7 } },
    });
  });
  it('an issue or pull request event: reacts to the issue or pull request itself', () => {
    expect(eventThread('issues.opened', { repository, issue: { number: 3 } })).toEqual({
      thread: { repository: 'acme/app', number: 3, reactTo: { kind: 'issue', number: 3 } },
    });
    expect(eventThread('pull_request.opened', { repository, pull_request: { number: 4 } })).toEqual({
      thread: { repository: 'acme/app', number: 4, reactTo: { kind: 'issue', number: 4 } },
    });
    expect(eventThread('pull_request_review.submitted', { repository, pull_request: { number: 4 }, review: { id: 1 } })).toEqual({
      thread: { repository: 'acme/app', number: 4, reactTo: { kind: 'issue', number: 4 } },
    });
  });
  it('says why events without a thread have none', () => {
    expect(eventThread('push', { repository, ref: 'refs/heads/main' })).toEqual({ none: 'a push event has no issue or pull request to answer in' });
    expect(eventThread('commit_comment.created', { repository, comment: { id: 1 } })).toHaveProperty('none');
    expect(eventThread('issues.opened', { issue: { number: 1 } })).toEqual({ none: 'the issues event names no repository' });
    expect(eventThread('issues.opened', { repository, issue: { number: -1 } })).toHaveProperty('none');
  });
});

const run = (overrides: Partial<RunRecord> = {}): RunRecord => ({
  id: 'run_1',
  org_id: 'org',
  automation_id: 'auto_1',
  delivery_id: 'dlv_1',
  trigger: 'event',
  event_key: 'issue_comment.created',
  status: 'COMPLETED',
  attempt: 1,
  conversation_id: null,
  sandbox_id: null,
  error_detail: null,
  created_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:01.000Z',
  completed_at: '2026-01-01T00:00:02.000Z',
  dispatch_payload_json: null,
  ...overrides,
});

describe('outcomeComment', () => {
  it('carries the run marker, the outcome, the answer and the link', () => {
    const body = outcomeComment(run(), 'Triage', { response: 'Labelled it **bug**.' }, 'http://x/console/runs/run_1');
    expect(body.startsWith(runMarker('run_1'))).toBe(true);
    expect(body).toContain('**Triage** ✅ completed.');
    expect(body).toContain('Labelled it **bug**.');
    expect(body).toContain('[Run `run_1`](http://x/console/runs/run_1)');
  });
  it('shows a failure reason as text, fenced past any backticks in it', () => {
    const body = outcomeComment(run({ status: 'FAILED', error_detail: 'boom ``` <script>', attempt: 3 }), 'T', null, null);
    expect(body).toContain('❌ failed');
    expect(body).toContain('````text\nboom ``` <script>\n````');
    expect(body).toContain('Run `run_1` · 3 attempts');
  });
  it("shows a command agent's output as text", () => {
    expect(outcomeComment(run(), 'T', { output: 'line 1\nline 2' }, null)).toContain('```text\nline 1\nline 2\n```');
  });
  it('cuts a very long answer below GitHub’s limit', () => {
    expect(outcomeComment(run(), 'T', { response: 'x'.repeat(100_000) }, null).length).toBeLessThan(65_536);
  });
});

describe('githubToolScope', () => {
  const payload = JSON.stringify({ repository, issue: { number: 12 }, comment: { id: 9 } });
  it("the event's repository and thread first, then the automation's, without repeats", () => {
    expect(
      githubToolScope(
        { selected_repository: 'https://github.com/acme/lib.git', github_repositories: ['ACME/app', 'acme/docs'] },
        'github',
        'issue_comment.created',
        payload,
      ),
    ).toEqual({
      repositories: ['acme/app', 'acme/lib', 'acme/docs'],
      thread: { repository: 'acme/app', number: 12 },
    });
  });
  it('no thread for a custom source or a manual dispatch', () => {
    expect(githubToolScope({ selected_repository: 'acme/lib', github_repositories: [] }, 'linear', null, payload)).toEqual({
      repositories: ['acme/lib'],
      thread: null,
    });
    expect(githubToolScope({ selected_repository: null, github_repositories: undefined }, null, null, null)).toEqual({ repositories: [], thread: null });
  });
});
