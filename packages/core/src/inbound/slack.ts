/**
 * Slack's Events API and interactivity requests, read as Slack sends them (both signed with the
 * app's signing secret, the `slack` scheme, and both accepted at the source's one URL).
 * - **URL verification**: `{"type": "url_verification", "challenge": …}`, sent when the app's
 *   Request URL is saved, is answered with its challenge once the signature holds; it is no event.
 * - **Event key**: the inner event's `type` (`app_mention`, `reaction_added`, ...), and for
 *   messages Slack's subscription names, by the channel they are in: `message.channels`,
 *   `message.groups`, `message.im`, `message.mpim`. Interactivity requests (form-encoded
 *   `payload=`) are named by their `type`: `block_actions`, `view_submission`, `shortcut`, ...
 * - **Delivery id**: the envelope's `event_id`, which Slack repeats on its retries
 *   (`X-Slack-Retry-Num`), so a retry is a duplicate. Interactivity requests have none.
 * - **Actor**: `event.user` (a user id, `U…`, is the login). A message with a `bot_id`, a
 *   `bot_profile` or the `bot_message` subtype is a bot's; one the platform's own app wrote
 *   (its `app_id` is the envelope's `api_app_id`, or its user is the installation's bot user) is
 *   the platform's (Slack has no hidden markers). Slack writes a mention of the app as `<@U…>`
 *   of its bot user, named in the envelope's `authorizations`. The channel it was written in
 *   (`event.channel`; a click's `channel.id`) is read for an automation's `slack_channels`.
 * - **Thread**: the team, the channel and the thread's first message (`thread_ts`, or the
 *   message's own `ts` when it starts one).
 * @module
 */
import {
  object,
  text,
  type InboundHost,
  type InboundThreadResult,
  headerValue,
  type EventActor,
  type EventKeyResult,
  type InboundHeaders,
} from './inbound-host.js';

/** Slack's retry count of an event it sends again (a retry repeats the `event_id`). */
export const SLACK_RETRY_HEADER = 'X-Slack-Retry-Num';

/** The `action_id`s of the approval buttons the platform posts in a thread: a click reads as `/approve` or `/reject`. */
export const SLACK_APPROVE_ACTION = 'agent_platform_approve';
export const SLACK_REJECT_ACTION = 'agent_platform_reject';

/** An approval button's `value`: the run and the held action it answers (`<run id> <action id>`). */
export const slackApprovalValue = (runId: string, actionId: string): string => `${runId} ${actionId}`;

/** The held action an approval button's `value` names; `null` for a value of another form. */
export function heldActionOfValue(value: string | null): string | null {
  const parts = value?.trim().split(/\s+/) ?? [];
  return parts.length === 2 && parts[1] ? parts[1] : null;
}

/** The event key as a JMESPath over the payload, naming events as {@link slackEventKey} does. */
export const SLACK_EVENT_KEY_EXPR =
  "type == 'event_callback' && (event.type == 'message' && (event.channel_type == 'channel' && 'message.channels' || event.channel_type == 'group' && 'message.groups' || event.channel_type == 'im' && 'message.im' || event.channel_type == 'mpim' && 'message.mpim' || 'message') || event.type) || type";

/**
 * What a mention trigger runs on in Slack: `app_mention` (Slack sends it exactly when the app is
 * mentioned), and `block_actions`, the clicks on the approval buttons the platform posts in the
 * thread (read as `/approve` and `/reject`; any other click is no command).
 */
export const SLACK_MENTION_EVENTS: readonly string[] = ['app_mention', 'block_actions'];

/** Slack's subscription name for messages in each kind of channel. */
const MESSAGE_SUBSCRIPTION: Readonly<Record<string, string>> = { channel: 'channels', group: 'groups', im: 'im', mpim: 'mpim' };

/** The JSON text of a Slack request: the body, or the `payload` field of a form-encoded interactivity request. */
export function slackPayloadText(headers: InboundHeaders, body: string): string | null {
  const contentType = headerValue(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') return body;
  return new URLSearchParams(body).get('payload');
}

/** The challenge of a URL verification request, or `null` for anything else. */
export function slackUrlVerification(payload: unknown): string | null {
  const body = object(payload);
  return body?.type === 'url_verification' && typeof body.challenge === 'string' ? body.challenge : null;
}

export function slackEventKey(payload: unknown): EventKeyResult {
  const body = object(payload);
  const type = text(body?.type);
  if (type === null) return { ok: false, reason: 'the Slack payload has no type' };
  if (type !== 'event_callback') return { ok: true, key: type };
  const event = object(body?.event);
  const inner = text(event?.type);
  if (inner === null) return { ok: false, reason: 'the Slack event_callback has no event.type' };
  if (inner !== 'message') return { ok: true, key: inner };
  const channel = MESSAGE_SUBSCRIPTION[text(event?.channel_type) ?? ''];
  return { ok: true, key: channel ? `message.${channel}` : 'message' };
}

/** The envelope's `event_id`; `null` for requests that have none (interactivity). */
export function slackDeliveryId(payload: unknown): string | null {
  const body = object(payload);
  return body?.type === 'event_callback' ? text(body.event_id) : null;
}

/** The installation's bot users (`authorizations[].user_id` with `is_bot`): how the app is mentioned and what it writes as. */
function botUsers(body: Record<string, unknown>): string[] {
  const authorizations = Array.isArray(body.authorizations) ? body.authorizations : [];
  return authorizations.flatMap((entry) => {
    const one = object(entry);
    const user = text(one?.user_id);
    return one?.is_bot === true && user !== null ? [user] : [];
  });
}

/** Messages whose text is what the sender wrote now (not an edit's or a deletion's envelope). */
const OWN_TEXT_SUBTYPES = new Set(['thread_broadcast', 'file_share', 'me_message']);

function eventActor(body: Record<string, unknown>, eventKey: string): EventActor {
  const event = object(body.event) ?? {};
  const login = text(event.user);
  const appId = text(body.api_app_id);
  const subtype = text(event.subtype);
  const profile = object(event.bot_profile);
  const bots = botUsers(body);
  const platform = (appId !== null && (text(event.app_id) === appId || text(profile?.app_id) === appId)) || (login !== null && bots.includes(login));
  const bot = platform || text(event.bot_id) !== null || profile !== null || subtype === 'bot_message';
  const spoken = eventKey === 'app_mention' || (eventKey.startsWith('message') && (subtype === null || OWN_TEXT_SUBTYPES.has(subtype)));
  const written = spoken ? text(event.text) : null;
  const firstMention = written === null ? null : (/<@[A-Z0-9]+>/.exec(written)?.[0] ?? null);
  const mentionedAs = bots.length > 0 ? `<@${bots[0]}>` : eventKey === 'app_mention' ? firstMention : null;
  const workspace = text(body.team_id);
  const senderTeam = text(event.user_team) ?? text(event.team);
  return {
    host: 'slack',
    login,
    id: login,
    bot,
    platform,
    association: null,
    text: written,
    comment: null,
    repository: null,
    mentionedAs,
    inWorkspace: workspace === null || senderTeam === null || senderTeam === workspace,
    channel: text(event.channel),
  };
}

/** An interactivity request's sender; a click on an approval button reads as the command it is. */
function interactionActor(body: Record<string, unknown>): EventActor {
  const user = object(body.user);
  const login = text(user?.id);
  const actions = Array.isArray(body.actions) ? body.actions : [];
  const action = object(actions[0]);
  const id = text(action?.action_id);
  // The button's `value` names the held action (which it answers), not a reason: the click is the bare command.
  const command = id === SLACK_APPROVE_ACTION ? '/approve' : id === SLACK_REJECT_ACTION ? '/reject' : null;
  const answers = command === null ? null : heldActionOfValue(text(action?.value));
  const workspace = text(object(body.team)?.id);
  const senderTeam = text(user?.team_id);
  return {
    host: 'slack',
    login,
    id: login,
    bot: false,
    platform: false,
    association: null,
    text: command,
    comment: null,
    repository: null,
    mentionedAs: null,
    inWorkspace: workspace === null || senderTeam === null || senderTeam === workspace,
    channel: text(object(body.channel)?.id) ?? text(object(body.container)?.channel_id),
    answers,
  };
}

export function slackActor(eventKey: string, payload: unknown): EventActor {
  const body = object(payload) ?? {};
  return body.type === 'event_callback' ? eventActor(body, eventKey) : interactionActor(body);
}

export function slackThread(eventKey: string, payload: unknown): InboundThreadResult {
  const body = object(payload) ?? {};
  let team: string | null;
  let channel: string | null;
  let ts: string | null;
  let root: string | null;
  if (body.type === 'event_callback') {
    const event = object(body.event) ?? {};
    team = text(body.team_id) ?? text(event.team);
    channel = text(event.channel);
    ts = text(event.ts);
    root = text(event.thread_ts) ?? ts;
  } else {
    // An interactivity request: the message its button was on, in its thread.
    const container = object(body.container);
    const message = object(body.message);
    team = text(object(body.team)?.id) ?? text(object(body.user)?.team_id);
    channel = text(object(body.channel)?.id) ?? text(container?.channel_id);
    ts = text(message?.ts) ?? text(container?.message_ts);
    root = text(message?.thread_ts) ?? text(container?.thread_ts) ?? ts;
  }
  if (team === null || channel === null || root === null) return { none: `a Slack ${eventKey || 'event'} event is not a message in a channel` };
  return {
    thread: {
      host: 'slack',
      key: `slack:${team}/${channel}/${root}`,
      label: `#${channel}`,
      repository: null,
      at: { team, channel, thread_ts: root, ts },
    },
  };
}

export const slackInbound: InboundHost = {
  host: 'slack',
  actorOf: slackActor,
  threadOf: slackThread,
  isComment: (eventKey) => eventKey === 'app_mention' || eventKey === 'message' || eventKey.startsWith('message.') || eventKey === 'block_actions',
  mentionEvents: SLACK_MENTION_EVENTS,
};
