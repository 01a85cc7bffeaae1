/**
 * The Web API methods the stand-in answers, as Slack answers them: HTTP 200 with `ok: true` and
 * the method's fields, or `ok: false` and Slack's error code (`channel_not_found`,
 * `not_in_channel`, `message_not_found`, `cant_update_message`, `already_reacted`, `no_text`,
 * `invalid_blocks`, `invalid_metadata_format`, `no_such_subteam` …). Arguments arrive already checked against the
 * description and typed (see `spec.ts`).
 * @module
 */
import { checkBlocks } from './spec.js';
import { messageView, type SlackChannelRecord, type SlackMessageRecord, type SlackState } from './state.js';

type Json = Record<string, unknown>;
export type Answer = Json & { ok: boolean };
export type MethodArguments = Record<string, unknown>;

export interface MethodContext {
  state: SlackState;
  /** The token's scopes. */
  scopes: ReadonlySet<string>;
}

const fail = (error: string, extra: Json = {}): Answer => ({ ok: false, error, ...extra });

/** Slack cuts text at 40,000 characters and refuses much longer messages; the stand-in refuses anything over. */
const MAX_TEXT = 40_000;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The channel, if the bot can see it: a private channel it is not in is not found, as Slack says. */
function visibleChannel(context: MethodContext, id: unknown): SlackChannelRecord | Answer {
  const channel = typeof id === 'string' ? context.state.channels.get(id) : undefined;
  if (!channel || (channel.private && !channel.members.has(context.state.bot.userId))) return fail('channel_not_found');
  return channel;
}

const isAnswer = (value: SlackChannelRecord | Answer): value is Answer => 'ok' in value;

function needScope(context: MethodContext, scope: string): Answer | null {
  return context.scopes.has(scope) ? null : fail('missing_scope', { needed: scope, provided: [...context.scopes].join(',') });
}

/**
 * Slack's documented Block Kit limits for what the platform sends (sections and buttons): at
 * most 50 blocks, a section's text at most 3,000 characters, at most 25 elements in an actions
 * block, a button's text at most 75, its `action_id` 255 and its `value` 2,000 characters.
 */
function blockProblems(blocks: unknown): string[] {
  const problems = checkBlocks(blocks);
  if (!Array.isArray(blocks)) return problems;
  if (blocks.length > 50) problems.push('more than 50 blocks');
  for (const [index, block] of blocks.entries()) {
    const one = block as Json;
    if (one.type === 'section') {
      const sectionText = (one.text as Json | undefined)?.text;
      if (typeof sectionText !== 'string' || sectionText.length === 0 || sectionText.length > 3000)
        problems.push(`/${index} a section's text must be 1-3000 characters`);
    } else if (one.type === 'actions') {
      const elements = Array.isArray(one.elements) ? (one.elements as Json[]) : [];
      if (elements.length === 0 || elements.length > 25) problems.push(`/${index} an actions block holds 1-25 elements`);
      for (const element of elements) {
        if (element.type !== 'button') continue;
        const label = (element.text as Json | undefined)?.text;
        if ((element.text as Json | undefined)?.type !== 'plain_text' || typeof label !== 'string' || label.length === 0 || label.length > 75)
          problems.push(`/${index} a button's text is plain_text of 1-75 characters`);
        if (typeof element.action_id !== 'string' || element.action_id.length > 255) problems.push(`/${index} a button's action_id is at most 255 characters`);
        if (element.value !== undefined && (typeof element.value !== 'string' || element.value.length > 2000))
          problems.push(`/${index} a button's value is at most 2000 characters`);
        if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger')
          problems.push(`/${index} a button's style is primary or danger`);
      }
    }
  }
  return problems;
}

/** Message metadata as Slack checks it: an `event_type` of letters, digits, `_` and `.`, and an object `event_payload`. */
function metadataProblem(metadata: unknown): string | null {
  if (metadata === undefined) return null;
  const value = metadata as Json | null;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'invalid_metadata_format';
  if (typeof value.event_type !== 'string' || !/^[A-Za-z0-9_.]{1,255}$/.test(value.event_type)) return 'invalid_metadata_schema';
  if (!value.event_payload || typeof value.event_payload !== 'object' || Array.isArray(value.event_payload)) return 'invalid_metadata_schema';
  return null;
}

/** The content of a message to post or update, or Slack's error for it. */
function content(args: MethodArguments, requireText: boolean): { text: string; blocks?: unknown[]; metadata?: SlackMessageRecord['metadata'] } | Answer {
  const blocks = args.blocks;
  if (blocks !== undefined && blockProblems(blocks).length > 0) return fail('invalid_blocks', { errors: blockProblems(blocks) });
  const body = typeof args.text === 'string' ? args.text : '';
  if (requireText && !body && !(Array.isArray(blocks) && blocks.length > 0)) return fail('no_text');
  if (body.length > MAX_TEXT) return fail('msg_too_long');
  const metadataError = metadataProblem(args.metadata);
  if (metadataError) return fail(metadataError);
  return {
    text: body,
    ...(Array.isArray(blocks) ? { blocks } : {}),
    ...(args.metadata === undefined ? {} : { metadata: args.metadata as SlackMessageRecord['metadata'] }),
  };
}

const methods: Record<string, (context: MethodContext, args: MethodArguments) => Answer> = {
  'auth.test': ({ state }) => ({
    ok: true,
    url: `https://${state.domain}.slack.com/`,
    team: state.domain,
    user: state.users.get(state.bot.userId)?.name ?? 'bot',
    team_id: state.teamId,
    user_id: state.bot.userId,
    bot_id: state.bot.botId,
    is_enterprise_install: false,
  }),

  'reactions.add': (context, args) => {
    const missing = needScope(context, 'reactions:write');
    if (missing) return missing;
    const channel = visibleChannel(context, args.channel);
    if (isAnswer(channel)) return channel;
    const message = channel.messages.find((one) => one.ts === args.timestamp);
    if (!message) return fail('message_not_found');
    const name = text(args.name);
    if (!name || !/^[a-z0-9_+'-]+$/.test(name)) return fail('invalid_name');
    const users = message.reactions.get(name) ?? [];
    if (users.includes(context.state.bot.userId)) return fail('already_reacted');
    message.reactions.set(name, [...users, context.state.bot.userId]);
    return { ok: true };
  },

  'chat.postMessage': (context, args) => {
    const missing = needScope(context, 'chat:write');
    if (missing) return missing;
    const channel = visibleChannel(context, args.channel);
    if (isAnswer(channel)) return channel;
    const { state } = context;
    if (!channel.members.has(state.bot.userId)) return fail('not_in_channel');
    const made = content(args, true);
    if ('ok' in made) return made;
    // A reply names its thread's first message; Slack files a reply to a reply under that thread too.
    const parent = typeof args.thread_ts === 'string' ? channel.messages.find((one) => one.ts === args.thread_ts) : undefined;
    const root = parent ? (parent.thread_ts ?? parent.ts) : undefined;
    const ts = state.nextTs();
    const message: SlackMessageRecord = {
      type: 'message',
      ts,
      ...(root ? { thread_ts: root } : {}),
      user: state.bot.userId,
      bot_id: state.bot.botId,
      app_id: state.bot.appId,
      team: state.teamId,
      reactions: new Map(),
      ...made,
      ...(args.reply_broadcast === true ? { broadcast: true } : {}),
    };
    if (root) {
      const first = channel.messages.find((one) => one.ts === root);
      if (first) first.thread_ts = root;
    }
    channel.messages.push(message);
    return { ok: true, channel: channel.id, ts, message: messageView(message) };
  },

  'chat.update': (context, args) => {
    const missing = needScope(context, 'chat:write');
    if (missing) return missing;
    const channel = visibleChannel(context, args.channel);
    if (isAnswer(channel)) return channel;
    const message = channel.messages.find((one) => one.ts === args.ts);
    if (!message) return fail('message_not_found');
    if (message.bot_id !== context.state.bot.botId) return fail('cant_update_message');
    const made = content(args, true);
    if ('ok' in made) return made;
    message.text = made.text;
    // Blocks and metadata left out of an update stay as they were.
    if (made.blocks) message.blocks = made.blocks;
    if (made.metadata) message.metadata = made.metadata;
    message.edited = { user: context.state.bot.userId, ts: context.state.nextTs() };
    return { ok: true, channel: channel.id, ts: message.ts, text: message.text, message: { ...messageView(message), text: message.text } };
  },

  'chat.getPermalink': (context, args) => {
    const channel = visibleChannel(context, args.channel);
    if (isAnswer(channel)) return channel;
    const message = channel.messages.find((one) => one.ts === args.message_ts);
    if (!message) return fail('message_not_found');
    return { ok: true, channel: channel.id, permalink: context.state.permalink(channel.id, message) };
  },

  'usergroups.users.list': (context, args) => {
    const missing = needScope(context, 'usergroups:read');
    if (missing) return missing;
    const group = typeof args.usergroup === 'string' ? context.state.userGroups.get(args.usergroup) : undefined;
    if (!group) return fail('no_such_subteam');
    if (!group.enabled && args.include_disabled !== true) return fail('subteam_disabled');
    return { ok: true, users: [...group.users] };
  },

  'conversations.replies': (context, args) => {
    const channel = visibleChannel(context, args.channel);
    if (isAnswer(channel)) return channel;
    const missing = needScope(context, channel.private ? 'groups:history' : 'channels:history');
    if (missing) return missing;
    const parent = channel.messages.find((one) => one.ts === String(args.ts));
    if (!parent) return fail('thread_not_found');
    const inclusive = args.inclusive === true;
    const after = (ts: string, bound: unknown) => bound === undefined || (inclusive ? Number(ts) >= Number(bound) : Number(ts) > Number(bound));
    const before = (ts: string, bound: unknown) => bound === undefined || (inclusive ? Number(ts) <= Number(bound) : Number(ts) < Number(bound));
    const replies = channel.messages.filter(
      (one) => one.thread_ts === parent.ts && one.ts !== parent.ts && after(one.ts, args.oldest) && before(one.ts, args.latest),
    );
    const limit = typeof args.limit === 'number' ? Math.min(Math.max(args.limit, 1), 1000) : 1000;
    const from =
      typeof args.cursor === 'string'
        ? Number(
            Buffer.from(args.cursor, 'base64')
              .toString('utf8')
              .replace(/^next:/, ''),
          ) || 0
        : 0;
    const page = replies.slice(from, from + limit);
    const more = from + limit < replies.length;
    const withMetadata = args.include_all_metadata === true;
    const view = (message: SlackMessageRecord) => messageView(message, { metadata: withMetadata });
    const replyUsers = [...new Set(replies.map((one) => one.user))];
    const first: Json = { ...view(parent) };
    if (replies.length > 0)
      Object.assign(first, {
        reply_count: replies.length,
        reply_users: replyUsers,
        reply_users_count: replyUsers.length,
        latest_reply: replies.at(-1)?.ts,
        subscribed: false,
      });
    // The thread's first message heads every page, as Slack returns it.
    const messages = [first, ...page.map((message) => ({ ...view(message), parent_user_id: parent.user }))];
    return {
      ok: true,
      messages,
      has_more: more,
      ...(more ? { response_metadata: { next_cursor: Buffer.from(`next:${from + limit}`).toString('base64') } } : {}),
    };
  },
};

export const METHOD_HANDLERS: Readonly<Record<string, (context: MethodContext, args: MethodArguments) => Answer>> = methods;
