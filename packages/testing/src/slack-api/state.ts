/**
 * The stand-in's in-memory Slack workspace: its team, the app's bot user, people, user groups,
 * channels (with who is in them) and their messages — top-level messages, thread replies, reactions, blocks and
 * message metadata. Tests seed it through the server's methods and read it back; the Web API
 * methods change it. Ids look like Slack's (`T…`, `U…`, `B…`, `C…`), and a message's `ts` is
 * seconds with six decimals, unique and increasing, as Slack makes them.
 * @module
 */

export interface SlackMessageRecord {
  type: 'message';
  ts: string;
  /** Set on replies, and on a thread's first message once it has replies. */
  thread_ts?: string;
  user: string;
  text: string;
  /** The app's messages: its bot and app. */
  bot_id?: string;
  app_id?: string;
  team: string;
  blocks?: unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** Emoji name → the users who reacted with it, in order. */
  reactions: Map<string, string[]>;
  edited?: { user: string; ts: string };
  /** The message was posted with `reply_broadcast`. */
  broadcast?: boolean;
}

export interface SlackChannelRecord {
  id: string;
  name: string;
  private: boolean;
  /** User ids of the channel's members (the bot posts only where it is one). */
  members: Set<string>;
  /** Oldest first. */
  messages: SlackMessageRecord[];
}

export interface SlackUserRecord {
  id: string;
  name: string;
  /** The user's workspace (a guest from another workspace in a shared channel has another). */
  team: string;
}

/** A user group (`S…`, `@handle` in Slack) and its members. */
export interface SlackUserGroupRecord {
  id: string;
  handle: string;
  /** User ids of its members. */
  users: string[];
  /** A disabled group lists its members only with `include_disabled`. */
  enabled: boolean;
}

export interface SlackBot {
  userId: string;
  botId: string;
  appId: string;
}

export interface SlackState {
  teamId: string;
  /** The workspace's subdomain: `https://<domain>.slack.com/`. */
  domain: string;
  bot: SlackBot;
  users: Map<string, SlackUserRecord>;
  channels: Map<string, SlackChannelRecord>;
  userGroups: Map<string, SlackUserGroupRecord>;
  /** A new `ts`, later than every one before. */
  nextTs(): string;
  /** The message `ts` in `channel`, or `undefined`. */
  message(channel: string, ts: string): SlackMessageRecord | undefined;
  /** Where people see a message (`chat.getPermalink`'s answer). */
  permalink(channel: string, message: SlackMessageRecord): string;
}

export function createState(setup: { teamId: string; domain: string; bot: SlackBot }): SlackState {
  let last = 0;
  const state: SlackState = {
    teamId: setup.teamId,
    domain: setup.domain,
    bot: setup.bot,
    users: new Map([[setup.bot.userId, { id: setup.bot.userId, name: 'agent-platform', team: setup.teamId }]]),
    channels: new Map(),
    userGroups: new Map(),
    nextTs() {
      // Microseconds since the epoch, never repeated: Slack's ts is unique per channel and ordered.
      last = Math.max(last + 1, Date.now() * 1000);
      return `${Math.floor(last / 1_000_000)}.${String(last % 1_000_000).padStart(6, '0')}`;
    },
    message(channel, ts) {
      return state.channels.get(channel)?.messages.find((message) => message.ts === ts);
    },
    permalink(channel, message) {
      const base = `https://${state.domain}.slack.com/archives/${channel}/p${message.ts.replace('.', '')}`;
      return message.thread_ts && message.thread_ts !== message.ts ? `${base}?thread_ts=${message.thread_ts}&cid=${channel}` : base;
    },
  };
  return state;
}

/** A message as the Web API shows it (`reactions` as Slack lists them; no metadata unless asked for). */
export function messageView(message: SlackMessageRecord, options: { metadata?: boolean; bot?: SlackBot; teamId?: string } = {}): Record<string, unknown> {
  const view: Record<string, unknown> = { type: 'message', ts: message.ts, user: message.user, text: message.text, team: message.team };
  if (message.thread_ts) view.thread_ts = message.thread_ts;
  if (message.bot_id) view.bot_id = message.bot_id;
  if (message.app_id) view.app_id = message.app_id;
  if (message.blocks) view.blocks = message.blocks;
  if (message.edited) view.edited = message.edited;
  if (message.reactions.size > 0) view.reactions = [...message.reactions].map(([name, users]) => ({ name, users: [...users], count: users.length }));
  if (options.metadata && message.metadata) view.metadata = message.metadata;
  return view;
}
