/**
 * The few Slack Web API calls the platform makes in a workspace with its app's bot token — who
 * the token is (`auth.test`), 👀 on a message (`reactions.add`), a reply in a thread
 * (`chat.postMessage` with `thread_ts`), an edit (`chat.update`), a thread's messages with their
 * metadata (`conversations.replies`), a message's link (`chat.getPermalink`) and a user group's
 * members (`usergroups.users.list`, for an automation's `slack_user_groups`) — as one small
 * interface, and its implementation over `@slack/web-api`, loaded on first use (a platform that
 * never answers in Slack never needs it).
 *
 * Slack answers most refusals with HTTP 200 and `{"ok": false, "error": "…"}`; they come out as
 * {@link SlackError}s with the status that error means (`invalid_auth` 401, `not_in_channel` 403,
 * `channel_not_found` 404, `ratelimited` 429) and words a workspace admin acts on, never the
 * token. Each call has a time limit and is not retried here: the run reporter decides what is
 * asked again.
 * @module
 */
import { HostError, scrubCredential } from '../ports/answer-host.js';
import { slackApiBaseUrl } from './slack-api-base-url.js';

/** Who a bot token acts as (`auth.test`). */
export interface SlackIdentity {
  teamId: string;
  /** The bot user (`U…`): what the app's messages are written as, and how it is mentioned. */
  userId: string;
  /** The bot (`B…`), on each message the app posts. */
  botId: string | null;
  /** The workspace's address, `https://acme.slack.com/`. */
  url: string;
}

/**
 * A message's metadata (Slack's "message metadata"): an app's own data on a message, shown to no
 * one, read back by `conversations.replies` with `include_all_metadata`.
 */
export interface SlackMetadata {
  event_type: string;
  event_payload: Record<string, string>;
}

/** Block Kit, as far as the platform uses it: sections of mrkdwn and a row of buttons. */
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | {
      type: 'actions';
      block_id?: string;
      elements: Array<{
        type: 'button';
        action_id: string;
        text: { type: 'plain_text'; text: string; emoji?: boolean };
        value: string;
        style?: 'primary' | 'danger';
      }>;
    };

/** What the platform posts: the text (mrkdwn; the notification's text when there are blocks), blocks, and its metadata. */
export interface SlackMessageInput {
  text: string;
  blocks?: SlackBlock[];
  metadata: SlackMetadata;
}

export interface SlackPosted {
  ts: string;
  url: string;
}

/** A message of a thread as `conversations.replies` lists it. */
export interface SlackThreadMessage {
  ts: string;
  user: string | null;
  botId: string | null;
  text: string;
  metadata: SlackMetadata | null;
}

export interface SlackApi {
  /** `auth.test`, asked once per API object. */
  identity(): Promise<SlackIdentity>;
  /** Adds the reaction `name` (`eyes`) to the message `ts`; one already there counts as added. */
  addReaction(channel: string, ts: string, name: string): Promise<void>;
  /** A reply in the thread of `threadTs`. */
  postReply(channel: string, threadTs: string, message: SlackMessageInput): Promise<SlackPosted>;
  /** Replaces message `ts`; `null` when it is gone (someone deleted it). */
  updateMessage(channel: string, ts: string, message: SlackMessageInput): Promise<SlackPosted | null>;
  /** Where people see message `ts` (`chat.getPermalink`). */
  permalink(channel: string, ts: string): Promise<string>;
  /** The thread's messages written at or after `oldest` (a Slack `ts`), oldest first, with their metadata. */
  threadMessages(channel: string, threadTs: string, oldest: string): Promise<SlackThreadMessage[]>;
  /** The user ids (`U…`) of user group `group`'s members (`usergroups.users.list`, scope `usergroups:read`). */
  userGroupMembers(group: string): Promise<string[]>;
}

/** A Slack call that failed: the HTTP status its error means (`null`: Slack was not reached) and why, in words a user acts on. */
export class SlackError extends HostError {
  override name = 'SlackError';
  constructor(
    status: number | null,
    message: string,
    /** Slack's own error code (`channel_not_found`), when it gave one. */
    readonly code: string | null = null,
  ) {
    super('slack', status, message);
  }
}

/** Each call's time limit: a slow Slack must not hold a run's report (or an agent's step) for long. */
const CALL_TIMEOUT_MS = 15_000;
/** Thread pages read at most while looking for a run's earlier message. */
const FIND_PAGES = 5;
const PAGE_SIZE = 200;

/** Slack's error codes the platform meets, with the status they mean and what to do about them. */
const KNOWN: Readonly<Record<string, { status: number; words: string }>> = {
  ratelimited: { status: 429, words: 'Slack is limiting how often the app may call it; it is asked again later' },
  rate_limited: { status: 429, words: 'Slack is limiting how often the app may call it; it is asked again later' },
  not_authed: { status: 401, words: 'no Slack token was sent' },
  invalid_auth: { status: 401, words: 'the stored Slack bot token was refused: is it the xoxb- token of the app installed in this workspace?' },
  token_revoked: { status: 401, words: 'the stored Slack bot token was revoked: reinstall the app and store its new token' },
  token_expired: { status: 401, words: 'the stored Slack bot token expired: store a current one' },
  account_inactive: { status: 401, words: 'the Slack app or its workspace was deactivated' },
  missing_scope: { status: 403, words: "the Slack bot token lacks a scope this call needs: add it in the app's OAuth & Permissions and reinstall" },
  not_in_channel: { status: 403, words: 'the Slack app is not in the channel: invite it there (/invite @your-app)' },
  is_archived: { status: 403, words: 'the Slack channel is archived' },
  restricted_action: { status: 403, words: "the workspace's settings do not let the app post there" },
  channel_not_found: { status: 404, words: 'the Slack channel was not found: it was deleted, or it is private and the app is not in it' },
  thread_not_found: { status: 404, words: 'the Slack thread was not found (its first message was deleted?)' },
  message_not_found: { status: 404, words: 'the Slack message was not found (deleted?)' },
  cant_update_message: { status: 403, words: 'the Slack message was not written by the app, so it cannot edit it' },
  msg_too_long: { status: 400, words: 'the message is too long for Slack' },
  invalid_blocks: { status: 400, words: "Slack refused the message's blocks" },
  no_such_subteam: { status: 404, words: "the Slack user group was not found: check its id (S…) in the automation's slack_user_groups" },
  subteam_disabled: { status: 404, words: 'the Slack user group is disabled: it has no members to command the agent' },
};

interface SlackClientError {
  code?: unknown;
  data?: { error?: unknown; needed?: unknown };
  retryAfter?: unknown;
  statusCode?: unknown;
  original?: unknown;
  message?: unknown;
}

/** Slack's words for a failed call, with what they usually mean, and never the token. */
function describe(error: unknown, token: string): SlackError {
  const failure = (error ?? {}) as SlackClientError;
  let result: SlackError;
  if (failure.code === 'slack_webapi_platform_error' && typeof failure.data?.error === 'string') {
    const code = failure.data.error;
    const known = KNOWN[code];
    const needed = code === 'missing_scope' && typeof failure.data.needed === 'string' ? ` (needed: ${failure.data.needed})` : '';
    result = new SlackError(known?.status ?? 400, `Slack answered ${code}${known ? `: ${known.words}` : ''}${needed}`, code);
  } else if (failure.code === 'slack_webapi_rate_limited_error') {
    const after = typeof failure.retryAfter === 'number' ? ` (retry after ${failure.retryAfter} s)` : '';
    result = new SlackError(429, `Slack answered ratelimited: ${KNOWN.ratelimited?.words ?? ''}${after}`, 'ratelimited');
  } else if (failure.code === 'slack_webapi_http_error' && typeof failure.statusCode === 'number') {
    result = new SlackError(failure.statusCode, `Slack answered HTTP ${failure.statusCode}`);
  } else {
    const cause = failure.original ?? error;
    const said = cause instanceof Error ? cause.message : typeof failure.message === 'string' ? failure.message : String(cause);
    result = new SlackError(null, `Slack could not be reached: ${said}`);
  }
  const scrubbed = scrubCredential(result.message, token);
  if (scrubbed !== result.message) return new SlackError(result.status, scrubbed, result.code);
  return result;
}

type WebClient = InstanceType<typeof import('@slack/web-api')['WebClient']>;

/** The module, whichever way it was loaded (it is CommonJS: an ES import may put its exports under `default`). */
async function loadWebClient(): Promise<typeof import('@slack/web-api')['WebClient']> {
  const loaded = (await import('@slack/web-api')) as typeof import('@slack/web-api') & { default?: typeof import('@slack/web-api') };
  return loaded.WebClient ?? (loaded.default as typeof import('@slack/web-api')).WebClient;
}

/** @slack/web-api's logger interface, saying nothing: failures reach the caller as {@link SlackError}s. */
const silent = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => 'error' as never,
  setName() {},
};

/** The message as `chat.postMessage` and `chat.update` take it. */
const messageArguments = (message: SlackMessageInput) => ({
  text: message.text,
  ...(message.blocks ? { blocks: message.blocks } : {}),
  metadata: message.metadata,
});

/** Links are not unfurled when a message is posted (the run's link would become a card under every reply). */
const NO_UNFURLS = { unfurl_links: false, unfurl_media: false } as const;

/** The Slack Web API for one bot token, on its host (`null`: slack.com). */
export function createSlackApi(token: string, host: string | null): SlackApi {
  const slackApiUrl = slackApiBaseUrl(host);
  let client: Promise<WebClient> | null = null;
  let identity: Promise<SlackIdentity> | null = null;
  const web = () => {
    client ??= loadWebClient().then(
      (WebClient) =>
        new WebClient(token, {
          slackApiUrl,
          timeout: CALL_TIMEOUT_MS,
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
          logger: silent,
        }),
    );
    return client;
  };
  const call = async <T>(work: (api: WebClient) => Promise<T>): Promise<T> => {
    try {
      return await work(await web());
    } catch (error) {
      throw error instanceof SlackError ? error : describe(error, token);
    }
  };
  const permalink = (api: WebClient, channel: string, ts: string) =>
    api.chat.getPermalink({ channel, message_ts: ts }).then((answer) => answer.permalink ?? '');
  /** `null` when Slack says the message is gone. */
  const goneAsNull = async <T>(work: () => Promise<T>): Promise<T | null> => {
    try {
      return await work();
    } catch (error) {
      if ((error as SlackClientError).data?.error === 'message_not_found') return null;
      throw error;
    }
  };
  return {
    identity() {
      identity ??= call(async (api) => {
        const answer = await api.auth.test();
        return { teamId: answer.team_id ?? '', userId: answer.user_id ?? '', botId: answer.bot_id ?? null, url: answer.url ?? '' };
      });
      // A failed ask is not kept: the next call asks again.
      identity.catch(() => {
        identity = null;
      });
      return identity;
    },
    addReaction: (channel, ts, name) =>
      call(async (api) => {
        try {
          await api.reactions.add({ channel, timestamp: ts, name });
        } catch (error) {
          if ((error as SlackClientError).data?.error !== 'already_reacted') throw error;
        }
      }),
    postReply: (channel, threadTs, message) =>
      call(async (api) => {
        const answer = await api.chat.postMessage({ channel, thread_ts: threadTs, ...messageArguments(message), ...NO_UNFURLS });
        const ts = answer.ts ?? '';
        return { ts, url: await permalink(api, answer.channel ?? channel, ts) };
      }),
    updateMessage: (channel, ts, message) =>
      call((api) =>
        goneAsNull(async () => {
          const answer = await api.chat.update({ channel, ts, ...messageArguments(message) });
          return { ts: answer.ts ?? ts, url: await permalink(api, answer.channel ?? channel, ts) };
        }),
      ),
    permalink: (channel, ts) => call((api) => permalink(api, channel, ts)),
    threadMessages: (channel, threadTs, oldest) =>
      call(async (api) => {
        const messages: SlackThreadMessage[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < FIND_PAGES; page++) {
          const answer = await api.conversations.replies({
            channel,
            ts: threadTs,
            oldest,
            inclusive: true,
            include_all_metadata: true,
            limit: PAGE_SIZE,
            ...(cursor ? { cursor } : {}),
          });
          for (const message of answer.messages ?? []) {
            if (typeof message.ts !== 'string') continue;
            const metadata = message.metadata;
            messages.push({
              ts: message.ts,
              user: message.user ?? null,
              botId: message.bot_id ?? null,
              text: message.text ?? '',
              metadata:
                metadata && typeof metadata.event_type === 'string'
                  ? { event_type: metadata.event_type, event_payload: stringsOf(metadata.event_payload) }
                  : null,
            });
          }
          cursor = answer.response_metadata?.next_cursor || undefined;
          if (!answer.has_more || !cursor) break;
        }
        return messages;
      }),
    userGroupMembers: (group) =>
      call(async (api) => {
        const answer = await api.usergroups.users.list({ usergroup: group });
        return answer.users ?? [];
      }),
  };
}

/** A metadata payload's string values (the platform writes only strings). */
function stringsOf(payload: unknown): Record<string, string> {
  const strings: Record<string, string> = {};
  if (payload && typeof payload === 'object') for (const [key, value] of Object.entries(payload)) if (typeof value === 'string') strings[key] = value;
  return strings;
}

/** A Slack `ts` (seconds, six decimals) for an ISO time. */
export const slackTs = (iso: string): string => (Math.max(0, Date.parse(iso)) / 1000).toFixed(6);
