/**
 * Events as GitLab, Bitbucket Cloud and Slack send them (payloads trimmed to real shapes from
 * each host's documentation, headers as each host names them), signed as each host signs.
 */
import { randomUUID } from 'node:crypto';
import { signHmacSha256, signSlack } from '@agent-platform/core';
import type { ApiResponse, Harness } from './harness.js';

/** A note on an issue, as GitLab sends it (`X-Gitlab-Event: Note Hook`). */
export const gitlabNote = (note: string, username = 'root') => ({
  object_kind: 'note',
  event_type: 'note',
  user: { id: 1, name: 'Administrator', username, avatar_url: 'http://www.gravatar.com/avatar/e64c7d89', email: 'admin@example.com' },
  project_id: 5,
  project: { id: 5, name: 'Gitlab Test', web_url: 'http://example.com/gitlab-org/gitlab-test', path_with_namespace: 'gitlab-org/gitlab-test' },
  object_attributes: {
    id: 1241,
    internal: false,
    note,
    noteable_type: 'Issue',
    author_id: 1,
    project_id: 5,
    noteable_id: 92,
    system: false,
    action: 'create',
    url: 'http://example.com/gitlab-org/gitlab-test/issues/17#note_1241',
  },
  issue: { id: 92, iid: 17, title: 'test', description: 'test', state: 'opened' },
});

/** Posts a GitLab delivery: the secret token in `X-Gitlab-Token`, its id in `Idempotency-Key`. */
export function sendGitlab(api: Harness, source: string, payload: object, token: string | null, idempotencyKey: string = randomUUID()): Promise<ApiResponse> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitLab/17.6.0',
    'x-gitlab-event': 'Note Hook',
    'x-gitlab-instance': 'https://gitlab.example.com',
    'x-gitlab-webhook-uuid': '02affd2d-2cba-4033-917d-ec22d5dc4b38',
    'x-gitlab-event-uuid': randomUUID(),
    'idempotency-key': idempotencyKey,
  };
  if (token !== null) headers['x-gitlab-token'] = token;
  return api.request('POST', `/api/automation/v1/events/acme/${source}`, { as: null, body: JSON.stringify(payload), headers });
}

/** A comment on a pull request, as Bitbucket Cloud sends it (`X-Event-Key: pullrequest:comment_created`). */
export const bitbucketComment = (raw: string, nickname = 'emma') => ({
  actor: { type: 'user', display_name: 'Emma', uuid: '{a54f16da-24e9-4d7f-a3a7-b1ba2cd98aa3}', account_id: '557058:emma', nickname },
  repository: { type: 'repository', full_name: 'acme-team/api', name: 'api', workspace: { type: 'workspace', slug: 'acme-team' } },
  pullrequest: { type: 'pullrequest', id: 12, title: 'Fix login', description: '', state: 'OPEN' },
  comment: { type: 'pullrequest_comment', id: 17, content: { raw, markup: 'markdown', html: `<p>${raw}</p>` }, deleted: false },
});

/** Posts a Bitbucket delivery: `X-Hub-Signature: sha256=<hex HMAC of the body>`, `X-Event-Key`, `X-Request-UUID`. */
export function sendBitbucket(api: Harness, source: string, eventKey: string, payload: object, secret: string, signedBody?: string): Promise<ApiResponse> {
  const body = JSON.stringify(payload);
  return api.request('POST', `/api/automation/v1/events/acme/${source}`, {
    as: null,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Bitbucket-Webhooks/2.0',
      'x-event-key': eventKey,
      'x-hook-uuid': '{9a2e2c7e-1b5d-4b5f-8a3c-6f2e1d0c9b8a}',
      'x-request-uuid': randomUUID(),
      'x-attempt-number': '1',
      'x-hub-signature': `sha256=${signHmacSha256(secret, signedBody ?? body)}`,
    },
  });
}

/** An `app_mention` in the Events API's envelope. */
export const slackMention = (text: string, eventId = `Ev${randomUUID().slice(0, 8).toUpperCase()}`) => ({
  token: 'XXYYZZ',
  team_id: 'T0001',
  api_app_id: 'A0APP',
  event: { type: 'app_mention', user: 'U0ALICE', text, ts: '1700000000.000200', channel: 'C0DEV', event_ts: '1700000000.000200', team: 'T0001' },
  type: 'event_callback',
  event_id: eventId,
  event_time: 1700000000,
  authorizations: [{ enterprise_id: null, team_id: 'T0001', user_id: 'U0BOT', is_bot: true, is_enterprise_install: false }],
  is_ext_shared_channel: false,
});

/** Posts a Slack request signed with the app's signing secret (`v0:` timestamp and body). */
export function sendSlack(
  api: Harness,
  source: string,
  body: string,
  secret: string,
  options: { contentType?: string; headers?: Record<string, string>; now?: Date } = {},
): Promise<ApiResponse> {
  const timestamp = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return api.request('POST', `/api/automation/v1/events/acme/${source}`, {
    as: null,
    body,
    headers: {
      'content-type': options.contentType ?? 'application/json',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signSlack({ secret, timestamp, body }),
      ...options.headers,
    },
  });
}
