/**
 * What Slack sends an app, for tests of code that receives it: Events API envelopes
 * (`event_callback` with an `app_mention` or a `message`) for messages people write in the
 * stand-in's workspace, interactivity requests (`block_actions`) for a click on a button of a
 * message the app posted, and the request itself — JSON for events, a form with one `payload`
 * field for interactivity — signed as Slack signs them (`X-Slack-Signature: v0=…`, the
 * HMAC-SHA256 with the app's signing secret of `v0:<timestamp>:<body>`, and
 * `X-Slack-Request-Timestamp`).
 * @module
 */
import { createHmac, randomUUID } from 'node:crypto';
import { messageView, type SlackMessageRecord, type SlackState } from './state.js';

type Json = Record<string, unknown>;

/** A request as Slack sends it to the app's Request URL. */
export interface SlackRequest {
  headers: Record<string, string>;
  body: string;
}

let eventCounter = 0;
const eventId = () => `Ev${Date.now().toString(36).toUpperCase()}${(++eventCounter).toString(36).toUpperCase().padStart(4, '0')}`;

/** The installation that receives the event: the app's bot user in the workspace. */
const authorizations = (state: SlackState): Json[] => [
  { enterprise_id: null, team_id: state.teamId, user_id: state.bot.userId, is_bot: true, is_enterprise_install: false },
];

/** The Events API envelope of `event`. */
export function eventEnvelope(state: SlackState, event: Json): Json {
  return {
    token: 'deprecated-verification-token',
    team_id: state.teamId,
    api_app_id: state.bot.appId,
    event,
    type: 'event_callback',
    event_id: eventId(),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: authorizations(state),
    is_ext_shared_channel: false,
    event_context: randomUUID(),
  };
}

/** The inner event of a person's message, as `app_mention` or `message` (in a channel) carries it. */
export function messageEvent(state: SlackState, type: 'app_mention' | 'message', channel: string, message: SlackMessageRecord): Json {
  const user = state.users.get(message.user);
  return {
    type,
    user: message.user,
    text: message.text,
    ts: message.ts,
    ...(message.thread_ts && message.thread_ts !== message.ts ? { thread_ts: message.thread_ts } : {}),
    channel,
    event_ts: message.ts,
    team: user?.team ?? state.teamId,
    ...(user && user.team !== state.teamId ? { user_team: user.team, source_team: user.team } : {}),
    client_msg_id: randomUUID(),
    ...(type === 'message' ? { channel_type: state.channels.get(channel)?.private ? 'group' : 'channel' } : {}),
  };
}

/** The `block_actions` request of `user` clicking the button `actionId` on the app's message. */
export function blockActions(state: SlackState, channel: string, message: SlackMessageRecord, actionId: string, userId: string): Json {
  const blocks = (message.blocks ?? []) as Json[];
  for (const block of blocks) {
    const elements = Array.isArray(block.elements) ? (block.elements as Json[]) : [];
    const button = elements.find((element) => element.type === 'button' && element.action_id === actionId);
    if (!button) continue;
    const user = state.users.get(userId);
    const team = user?.team ?? state.teamId;
    return {
      type: 'block_actions',
      user: { id: userId, username: user?.name ?? userId, name: user?.name ?? userId, team_id: team },
      api_app_id: state.bot.appId,
      token: 'deprecated-verification-token',
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: channel,
        is_ephemeral: false,
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
      },
      trigger_id: `${Date.now()}.${randomUUID()}`,
      team: { id: state.teamId, domain: state.domain },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: channel, name: state.channels.get(channel)?.name ?? channel },
      message: messageView(message),
      state: { values: {} },
      response_url: `https://hooks.slack.com/actions/${state.teamId}/${Date.now()}/${randomUUID()}`,
      actions: [
        {
          action_id: button.action_id,
          block_id: block.block_id ?? randomUUID(),
          text: button.text,
          ...(button.value === undefined ? {} : { value: button.value }),
          ...(button.style === undefined ? {} : { style: button.style }),
          type: 'button',
          action_ts: (Date.now() / 1000).toFixed(6),
        },
      ],
    };
  }
  throw new Error(`the message ${message.ts} in ${channel} has no button ${actionId}`);
}

/** `payload` as Slack sends it, signed with `signingSecret` (at `timestamp`, seconds; default now). */
export function signedSlackRequest(signingSecret: string, payload: Json, options: { timestamp?: number; retry?: number } = {}): SlackRequest {
  const interactive = payload.type !== 'event_callback' && payload.type !== 'url_verification';
  const body = interactive ? new URLSearchParams({ payload: JSON.stringify(payload) }).toString() : JSON.stringify(payload);
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return {
    headers: {
      'content-type': interactive ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-slack-signature': signature,
      'x-slack-request-timestamp': timestamp,
      ...(options.retry === undefined ? {} : { 'x-slack-retry-num': String(options.retry), 'x-slack-retry-reason': 'http_timeout' }),
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    },
    body,
  };
}
