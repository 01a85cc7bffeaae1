/**
 * The Slack stand-in, driven by the real `@slack/web-api`: the methods answer as Slack does and
 * conform to Slack's description, calls that do not conform (an unknown argument, a missing one,
 * a wrong type, an unknown method, a body Slack does not take) are violations, refusals are
 * Slack's error codes, and the events and interactivity requests it makes are signed as Slack
 * signs them (checked with the platform's own `slack` scheme).
 */
import { verifySignature } from '@agent-platform/core';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackApi, type SlackApiServer } from './index.js';
import { checkAnswer } from './spec.js';

const TOKEN = 'xoxb-5555-6666-stand-in-test';
const CHANNEL = 'C0GENERAL01';
const FRANK = 'U0FRANK0001';

let slack: SlackApiServer;
let client: WebClient;
beforeEach(async () => {
  slack = await startSlackApi({ tokens: { [TOKEN]: {} } });
  slack.addUser(FRANK, { name: 'frank' });
  slack.addChannel(CHANNEL, { name: 'general' });
  client = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
});
afterEach(async () => {
  await slack.close();
});

describe('the Slack stand-in', () => {
  it('answers the methods the platform calls as Slack does, conforming to its description', async () => {
    await expect(client.auth.test()).resolves.toMatchObject({ ok: true, team_id: slack.teamId, user_id: slack.bot.userId, bot_id: slack.bot.botId });
    const asked = slack.say(CHANNEL, FRANK, `<@${slack.bot.userId}> hello`);
    expect(asked.mention).toMatchObject({
      type: 'event_callback',
      api_app_id: slack.bot.appId,
      event: { type: 'app_mention', user: FRANK, ts: asked.ts, channel: CHANNEL },
    });
    await client.reactions.add({ channel: CHANNEL, timestamp: asked.ts, name: 'eyes' });
    await expect(client.reactions.add({ channel: CHANNEL, timestamp: asked.ts, name: 'eyes' })).rejects.toMatchObject({ data: { error: 'already_reacted' } });
    const posted = await client.chat.postMessage({
      channel: CHANNEL,
      thread_ts: asked.ts,
      text: 'on it',
      metadata: { event_type: 'agent_platform', event_payload: { marker: 'm1' } },
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'on it' } }],
      unfurl_links: false,
    });
    expect(posted).toMatchObject({ ok: true, channel: CHANNEL, message: { thread_ts: asked.ts, bot_id: slack.bot.botId } });
    await client.chat.update({
      channel: CHANNEL,
      ts: posted.ts ?? '',
      text: 'done',
      metadata: { event_type: 'agent_platform', event_payload: { marker: 'm1' } },
    });
    const replies = await client.conversations.replies({
      channel: CHANNEL,
      ts: asked.ts,
      include_all_metadata: true,
      oldest: asked.ts,
      inclusive: true,
      limit: 50,
    });
    expect(replies.messages?.map((message) => [message.text, message.metadata?.event_payload])).toEqual([
      [`<@${slack.bot.userId}> hello`, undefined],
      ['done', { marker: 'm1' }],
    ]);
    const withoutMetadata = await client.conversations.replies({ channel: CHANNEL, ts: asked.ts });
    expect(withoutMetadata.messages?.[1]?.metadata).toBeUndefined();
    await expect(client.chat.getPermalink({ channel: CHANNEL, message_ts: posted.ts ?? '' })).resolves.toMatchObject({
      permalink: `https://acme.slack.com/archives/${CHANNEL}/p${(posted.ts ?? '').replace('.', '')}?thread_ts=${asked.ts}&cid=${CHANNEL}`,
    });
    expect(slack.requests.map((request) => [request.method, request.encoding, request.auth])).toContainEqual(['chat.postMessage', 'form', 'bearer']);
    expect(slack.violations).toEqual([]);
  });

  it("pages a thread's replies with a cursor", async () => {
    const first = slack.say(CHANNEL, FRANK, 'thread');
    for (let index = 0; index < 5; index++) slack.say(CHANNEL, FRANK, `reply ${index}`, { threadTs: first.ts });
    const page = await client.conversations.replies({ channel: CHANNEL, ts: first.ts, limit: 3 });
    expect(page.has_more).toBe(true);
    const next = await client.conversations.replies({ channel: CHANNEL, ts: first.ts, limit: 3, cursor: page.response_metadata?.next_cursor ?? '' });
    expect([...(page.messages ?? []), ...(next.messages ?? []).slice(1)].map((message) => message.text)).toEqual([
      'thread',
      'reply 0',
      'reply 1',
      'reply 2',
      'reply 3',
      'reply 4',
    ]);
    expect(slack.violations).toEqual([]);
  });

  it("refuses as Slack does: Slack's error codes, HTTP 429 while rate-limited", async () => {
    slack.addChannel('C0PRIVATE01', { private: true, botIsMember: false });
    slack.addChannel('C0PUBLIC001', { botIsMember: false });
    await expect(client.chat.postMessage({ channel: 'C0PRIVATE01', text: 'x' })).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
    await expect(client.chat.postMessage({ channel: 'C0PUBLIC001', text: 'x' })).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
    await expect(client.chat.update({ channel: CHANNEL, ts: '1000000000.000001', text: 'x' })).rejects.toMatchObject({ data: { error: 'message_not_found' } });
    const someone = slack.say(CHANNEL, FRANK, 'mine');
    await expect(client.chat.update({ channel: CHANNEL, ts: someone.ts, text: 'x' })).rejects.toMatchObject({ data: { error: 'cant_update_message' } });
    await expect(new WebClient('xoxb-wrong', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }).auth.test()).rejects.toMatchObject({
      data: { error: 'invalid_auth' },
    });
    await expect(
      client.chat.postMessage({
        channel: CHANNEL,
        text: 'x',
        blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'x'.repeat(80) } }] }],
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    slack.rateLimit('chat.postMessage', 1, 7);
    await expect(client.chat.postMessage({ channel: CHANNEL, text: 'x' })).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 });
    expect(slack.requests.at(-1)).toMatchObject({ method: 'chat.postMessage', status: 429, error: 'ratelimited' });
    expect(slack.violations).toEqual([]);
  });

  it("lists a user group's members as Slack does, with the usergroups:read scope", async () => {
    slack.addUserGroup('S0ONCALL001', [FRANK, 'U0GRACE0001'], { handle: 'oncall' });
    slack.addUserGroup('S0RETIRED01', [FRANK], { enabled: false });
    await expect(client.usergroups.users.list({ usergroup: 'S0ONCALL001' })).resolves.toMatchObject({ ok: true, users: [FRANK, 'U0GRACE0001'] });
    await expect(client.usergroups.users.list({ usergroup: 'S0NOSUCH001' })).rejects.toMatchObject({ data: { error: 'no_such_subteam' } });
    await expect(client.usergroups.users.list({ usergroup: 'S0RETIRED01' })).rejects.toMatchObject({ data: { error: 'subteam_disabled' } });
    await expect(client.usergroups.users.list({ usergroup: 'S0RETIRED01', include_disabled: true })).resolves.toMatchObject({ users: [FRANK] });
    const scoped = await startSlackApi({ tokens: { [TOKEN]: { scopes: ['chat:write'] } } });
    try {
      const narrow = new WebClient(TOKEN, { slackApiUrl: scoped.apiUrl, retryConfig: { retries: 0 } });
      await expect(narrow.usergroups.users.list({ usergroup: 'S0ONCALL001' })).rejects.toMatchObject({
        data: { error: 'missing_scope', needed: 'usergroups:read' },
      });
      expect(scoped.violations).toEqual([]);
    } finally {
      await scoped.close();
    }
    await client.apiCall('usergroups.users.list', {}).catch(() => null);
    expect(slack.violations).toEqual([{ kind: 'argument', method: 'usergroups.users.list', problems: ['usergroup is required'] }]);
  });

  it('records calls that do not conform to the description as violations', async () => {
    await client.apiCall('chat.postMessage', { channel: CHANNEL, text: 'x', not_an_argument: 'y' }).catch(() => null);
    await client.apiCall('chat.update', { channel: CHANNEL, text: 'x' }).catch(() => null);
    await client.apiCall('conversations.replies', { channel: CHANNEL, ts: 'yesterday' }).catch(() => null);
    await client.apiCall('chat.postMessage', { channel: CHANNEL, text: 'x', metadata: '{not json' }).catch(() => null);
    await client.apiCall('no.suchMethod', {}).catch(() => null);
    await fetch(`${slack.apiUrl}auth.test`, { method: 'POST', headers: { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` }, body: 'hi' });
    expect(slack.violations.map((violation) => [violation.kind, violation.method, violation.problems.join('; ')])).toEqual([
      ['argument', 'chat.postMessage', 'not_an_argument is not an argument of chat.postMessage'],
      ['argument', 'chat.update', 'ts is required'],
      ['argument', 'conversations.replies', 'ts (number, per description) is "yesterday"'],
      ['argument', 'chat.postMessage', 'metadata (json, per @slack/web-api) is not JSON'],
      ['method', 'no.suchMethod', "no.suchMethod is not a method of Slack's description"],
      ['body', 'auth.test', 'a body of text/plain: Slack takes form-encoded or JSON bodies'],
    ]);
  });

  it("checks answers against the description's response schemas (what the stand-in itself must never get wrong)", () => {
    expect(checkAnswer('auth.test', { ok: true, url: 'https://acme.slack.com/' })).toEqual(
      expect.arrayContaining([expect.stringContaining("must have required property 'team_id'")]),
    );
    expect(checkAnswer('chat.getPermalink', { ok: true, channel: 'not-a-channel', permalink: 'https://acme.slack.com/archives/C0GENERAL01/p1' })).toEqual([
      expect.stringContaining('/channel must match pattern'),
    ]);
    expect(checkAnswer('reactions.add', { ok: true, extra: 1 })).toEqual(['(root) must NOT have additional properties (extra)']);
    expect(checkAnswer('reactions.add', { ok: false, error: 'ratelimited' })).toEqual([]);
    expect(checkAnswer('reactions.add', { ok: false })).toEqual(["(root) must have required property 'error'"]);
  });

  it("signs events and interactivity requests as Slack does (the platform's slack scheme verifies them)", async () => {
    const secret = 'slack-signing-secret-0123456789';
    const asked = slack.say(CHANNEL, FRANK, `<@${slack.bot.userId}> approve me`);
    const event = slack.signed(secret, asked.mention ?? {});
    expect(event.headers['content-type']).toBe('application/json');
    const check = (request: { headers: Record<string, string>; body: string }, secrets = [secret]) =>
      verifySignature({ scheme: 'slack', headers: request.headers, body: new TextEncoder().encode(request.body), secrets, now: new Date() });
    expect(check(event)).toMatchObject({ ok: true });
    expect(check(event, ['another-secret-entirely'])).toMatchObject({ ok: false });

    const posted = await client.chat.postMessage({
      channel: CHANNEL,
      thread_ts: asked.ts,
      text: 'Approve?',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'agent_platform_approve', value: 'run_1 evt_1', text: { type: 'plain_text', text: 'Approve' } }],
        },
      ],
    });
    const click = slack.signed(secret, slack.click(CHANNEL, posted.ts ?? '', 'agent_platform_approve', FRANK));
    expect(click.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const payload = JSON.parse(new URLSearchParams(click.body).get('payload') ?? '{}') as Record<string, unknown>;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: FRANK, team_id: slack.teamId },
      container: { thread_ts: asked.ts },
      actions: [{ value: 'run_1 evt_1' }],
    });
    expect(check(click)).toMatchObject({ ok: true });
    expect(() => slack.click(CHANNEL, posted.ts ?? '', 'no_such_button', FRANK)).toThrow(/no button/);
  });
});
