import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutomation } from '../test-support/events.js';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';
import { bitbucketComment, gitlabNote, sendBitbucket, sendGitlab, sendSlack, slackMention } from '../test-support/host-examples.js';

/** Slack's signing secret: made by Slack, given to the platform. */
const SLACK_SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

describe.each(BINDINGS)('GitLab, Bitbucket and Slack sources on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  const register = (json: Record<string, unknown>) => api.request('POST', '/api/automation/v1/webhooks', { json });
  const deliveryCount = async () => (await api.request('GET', '/api/automation/v1/deliveries')).json.total as number;
  const delivery = async (id: string) => (await api.request('GET', `/api/automation/v1/deliveries/${id}`)).json;

  it('registers a host’s source by kind, with its verification, naming and delivery id fixed', async () => {
    const gitlab = await register({ name: 'Our GitLab', kind: 'gitlab', source: 'gitlab' });
    expect(gitlab.status).toBe(201);
    expect(gitlab.json).toMatchObject({
      kind: 'gitlab',
      source: 'gitlab',
      signature_scheme: 'gitlab-token',
      signature_header: 'X-Gitlab-Token',
      delivery_id_header: 'Idempotency-Key',
      event_key_header: null,
      webhook_url: expect.stringMatching(/\/api\/automation\/v1\/events\/acme\/gitlab$/),
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    const bitbucket = await register({ name: 'Bitbucket', kind: 'bitbucket', source: 'bitbucket-acme', webhook_secret: 'bitbucket-secret-1234' });
    expect(bitbucket.json).toMatchObject({
      kind: 'bitbucket',
      signature_scheme: 'hmac-sha256',
      signature_header: 'X-Hub-Signature',
      event_key_header: 'X-Event-Key',
    });
    const custom = await register({ name: 'Linear', source: 'linear-kinds' });
    expect(custom.json.kind).toBe('custom');
    const listed = await api.request('GET', '/api/automation/v1/webhooks');
    const kinds = Object.fromEntries(listed.json.webhooks.map((webhook: { source: string; kind: string }) => [webhook.source, webhook.kind]));
    expect(kinds).toMatchObject({ gitlab: 'gitlab', 'bitbucket-acme': 'bitbucket', 'linear-kinds': 'custom' });
  });

  it('refuses host names for custom sources, other names for a kind, and fields a kind fixes (422)', async () => {
    const loc = async (json: Record<string, unknown>) => {
      const answer = await register(json);
      expect(answer.status, answer.text).toBe(422);
      return answer.json.detail[0];
    };
    expect(await loc({ name: 'x', source: 'slack' })).toMatchObject({
      loc: ['body', 'source'],
      msg: 'is reserved for slack sources: register it with "kind": "slack"',
    });
    expect(await loc({ name: 'x', source: 'gitlab-ci' })).toMatchObject({ loc: ['body', 'source'] });
    expect(await loc({ name: 'x', kind: 'gitlab', source: 'our-gitlab' })).toMatchObject({ loc: ['body', 'source'] });
    expect(await loc({ name: 'x', kind: 'gitlab', source: 'gitlab-two', signature_header: 'X-Token' })).toMatchObject({
      loc: ['body', 'signature_header'],
      msg: 'is set by the gitlab kind and cannot be given',
    });
    expect(await loc({ name: 'x', kind: 'slack', source: 'slack-two' })).toMatchObject({ loc: ['body', 'webhook_secret'], type: 'missing' });
    expect(await loc({ name: 'x', kind: 'jira', source: 'jira' })).toMatchObject({ loc: ['body', 'kind'] });
  });

  it('keeps a kind’s fields fixed on PATCH; name and enabled still change', async () => {
    const { json } = await register({ name: 'GitLab EU', kind: 'gitlab', source: 'gitlab-eu' });
    const patch = (body: Record<string, unknown>) => api.request('PATCH', `/api/automation/v1/webhooks/${json.id}`, { json: body });
    expect((await patch({ event_key_expr: 'object_kind' })).status).toBe(422);
    expect((await patch({ delivery_id_header: null })).json.detail[0]).toMatchObject({ loc: ['body', 'delivery_id_header'] });
    expect((await patch({ kind: 'custom' })).json.detail[0]).toMatchObject({ loc: ['body', 'kind'] });
    const renamed = await patch({ name: 'GitLab (EU)', enabled: false });
    expect(renamed.json).toMatchObject({ name: 'GitLab (EU)', enabled: false, kind: 'gitlab', signature_scheme: 'gitlab-token' });
  });

  it('GitLab: a note with the right token is stored as note.create and matched by a mention; a wrong token is a 401', async () => {
    const { json } = await register({ name: 'GitLab', kind: 'gitlab', source: 'gitlab-notes', webhook_secret: 'glwh-token-0123456789' });
    const mention = await createAutomation(api, { source: 'gitlab-notes', mention: '@agent' }, 'alice', 'gitlab mention');
    await api.request('PATCH', `/api/automation/v1/${mention}`, { json: { allowed_actors: ['root'] } });
    const before = await deliveryCount();
    expect((await sendGitlab(api, 'gitlab-notes', gitlabNote('@agent fix it'), 'wrong-token-000000')).status).toBe(401);
    expect((await sendGitlab(api, 'gitlab-notes', gitlabNote('@agent fix it'), null)).status).toBe(401);
    expect(await deliveryCount()).toBe(before);

    const answer = await sendGitlab(api, 'gitlab-notes', gitlabNote('@agent fix it'), 'glwh-token-0123456789', 'f5e5f430-f57b-4e6e-9fac-d9128cd7232f');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual({ received: true, delivery_id: expect.any(String), matched: 1, runs_created: [expect.any(String)] });
    expect(await delivery(answer.json.delivery_id)).toMatchObject({
      source: 'gitlab-notes',
      event_key: 'note.create',
      provider_delivery_id: 'f5e5f430-f57b-4e6e-9fac-d9128cd7232f',
      status: 'matched',
    });
    const runs = await api.request('GET', `/api/automation/v1/${mention}/runs`);
    expect(runs.json.runs[0]).toMatchObject({ status: 'PENDING', event_key: 'note.create', thread_key: 'gitlab:gitlab-org/gitlab-test#17' });

    // GitLab's retry repeats the Idempotency-Key: a duplicate.
    const retry = await sendGitlab(api, 'gitlab-notes', gitlabNote('@agent fix it'), 'glwh-token-0123456789', 'f5e5f430-f57b-4e6e-9fac-d9128cd7232f');
    expect(retry.json).toEqual({ received: true, duplicate: true, matched: 0, runs_created: [] });
    // A note that mentions nobody, and one by someone not trusted, start nothing.
    const plain = await sendGitlab(api, 'gitlab-notes', gitlabNote('looks good'), 'glwh-token-0123456789');
    expect(plain.json.matched).toBe(0);
    const stranger = await sendGitlab(api, 'gitlab-notes', gitlabNote('@agent rm everything', 'mallory'), 'glwh-token-0123456789');
    expect(stranger.json.matched).toBe(0);
    expect((await delivery(stranger.json.delivery_id)).outcomes[0]).toMatchObject({ reason: 'actor_refused', error: expect.stringContaining('@mallory') });
    expect(json.kind).toBe('gitlab');
  });

  it('Bitbucket: a comment with the right X-Hub-Signature is stored as pullrequest:comment_created and matched; a wrong one is a 401', async () => {
    await register({ name: 'Bitbucket', kind: 'bitbucket', source: 'bitbucket', webhook_secret: 'bb-secret-0123456789' });
    const automation = await createAutomation(
      api,
      { source: 'bitbucket', mention: '@agent', filter: "repository.full_name == 'acme-team/api'" },
      'alice',
      'bb',
    );
    await api.request('PATCH', `/api/automation/v1/${automation}`, { json: { allowed_actors: ['emma'] } });
    const payload = bitbucketComment('@agent please rebase');
    const before = await deliveryCount();
    expect((await sendBitbucket(api, 'bitbucket', 'pullrequest:comment_created', payload, 'not-the-secret-00')).status).toBe(401);
    const tampered = await sendBitbucket(
      api,
      'bitbucket',
      'pullrequest:comment_created',
      payload,
      'bb-secret-0123456789',
      JSON.stringify(bitbucketComment('other')),
    );
    expect(tampered.status).toBe(401);
    expect(await deliveryCount()).toBe(before);

    const answer = await sendBitbucket(api, 'bitbucket', 'pullrequest:comment_created', payload, 'bb-secret-0123456789');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.matched).toBe(1);
    const stored = await delivery(answer.json.delivery_id);
    expect(stored).toMatchObject({ event_key: 'pullrequest:comment_created', provider_delivery_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const runs = await api.request('GET', `/api/automation/v1/${automation}/runs`);
    expect(runs.json.runs[0]).toMatchObject({ thread_key: 'bitbucket:acme-team/api/pull-requests/12' });
    // A push is stored under its own key and starts nothing here.
    const push = await sendBitbucket(
      api,
      'bitbucket',
      'repo:push',
      { actor: payload.actor, repository: payload.repository, push: { changes: [] } },
      'bb-secret-0123456789',
    );
    expect((await delivery(push.json.delivery_id)).event_key).toBe('repo:push');
  });

  it('Slack: answers url_verification with its challenge and stores nothing; refuses it unsigned', async () => {
    const registered = await register({ name: 'Slack app', kind: 'slack', source: 'slack', webhook_secret: SLACK_SIGNING_SECRET });
    expect(registered.json).toMatchObject({ kind: 'slack', signature_scheme: 'slack', signature_header: 'X-Slack-Signature' });
    expect(registered.json.webhook_secret).toBeUndefined();
    const before = await deliveryCount();
    const challenge = JSON.stringify({
      token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    const answer = await sendSlack(api, 'slack', challenge, SLACK_SIGNING_SECRET);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    const unsigned = await api.request('POST', '/api/automation/v1/events/acme/slack', {
      as: null,
      body: challenge,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
    expect((await sendSlack(api, 'slack', challenge, 'another-signing-secret-000')).status).toBe(401);
    expect(await deliveryCount()).toBe(before);
  });

  it('Slack: an app_mention is stored and matched; Slack’s retry with the same event_id is a duplicate', async () => {
    await register({ name: 'Slack eng', kind: 'slack', source: 'slack-eng', webhook_secret: SLACK_SIGNING_SECRET });
    const automation = await createAutomation(api, { source: 'slack-eng', mention: '@agent' }, 'alice', 'slack mention');
    const body = JSON.stringify(slackMention('<@U0BOT> the build on main is red', 'Ev0RETRY01'));
    const first = await sendSlack(api, 'slack-eng', body, SLACK_SIGNING_SECRET);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ matched: 1, runs_created: [expect.any(String)] });
    expect(await delivery(first.json.delivery_id)).toMatchObject({ event_key: 'app_mention', provider_delivery_id: 'Ev0RETRY01' });
    const runs = await api.request('GET', `/api/automation/v1/${automation}/runs`);
    expect(runs.json.runs[0]).toMatchObject({ thread_key: 'slack:T0001/C0DEV/1700000000.000200' });
    const retry = await sendSlack(api, 'slack-eng', body, SLACK_SIGNING_SECRET, {
      headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
    });
    expect(retry.json).toEqual({ received: true, duplicate: true, matched: 0, runs_created: [] });
  });

  it('Slack: an interactivity request (form-encoded payload=) is verified and stored as its type', async () => {
    await register({ name: 'Slack ops', kind: 'slack', source: 'slack-ops', webhook_secret: SLACK_SIGNING_SECRET });
    await createAutomation(api, { source: 'slack-ops', on: 'block_actions' }, 'alice', 'buttons');
    const payload = {
      type: 'block_actions',
      user: { id: 'U0ALICE', team_id: 'T0001' },
      team: { id: 'T0001', domain: 'acme' },
      channel: { id: 'C0DEV', name: 'dev' },
      message: { type: 'message', ts: '1700000400.000100', thread_ts: '1700000000.000200', text: 'Approve?' },
      actions: [{ action_id: 'agent_platform_approve', type: 'button', value: 'ok' }],
      trigger_id: '12466734323.1395872398',
    };
    const form = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const answer = await sendSlack(api, 'slack-ops', form, SLACK_SIGNING_SECRET, { contentType: 'application/x-www-form-urlencoded' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.matched).toBe(1);
    expect(await delivery(answer.json.delivery_id)).toMatchObject({ event_key: 'block_actions', payload });
    const empty = await sendSlack(api, 'slack-ops', 'token=x', SLACK_SIGNING_SECRET, { contentType: 'application/x-www-form-urlencoded' });
    expect(empty.status).toBe(400);
  });
});
