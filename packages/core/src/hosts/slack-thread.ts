/**
 * The Slack thread of an event, as the Slack adapter keeps it: the workspace, the channel, the
 * thread's first message (`thread_ts`, or the message's own `ts` when it starts a thread) and the
 * message that asked — read with the inbound side's parsing (`inbound/slack.ts`) for a mention of
 * the app (`app_mention`) and for messages.
 * @module
 */
import { slackThread } from '../inbound/slack.js';

export const SLACK_HOST = 'slack';

/** What the adapter keeps in a thread's locator. */
export interface SlackLocator {
  team: string;
  channel: string;
  /** The thread's first message: replies go under it. */
  threadTs: string;
  /** The message that asked: the reaction goes on it. */
  ts: string;
}

/** `#C0123 (thread 1700000000.000100)`: the channel and the thread, as a run's report names them. */
export const slackThreadLabel = (locator: Pick<SlackLocator, 'channel' | 'threadTs'>): string => `#${locator.channel} (thread ${locator.threadTs})`;

/** The Slack thread of an event, or why it has none. */
export function slackLocatorOf(eventKey: string | null, payload: unknown): { locator: SlackLocator } | { none: string } {
  const key = eventKey ?? '';
  if (key !== 'app_mention' && key !== 'message' && !key.startsWith('message.'))
    return { none: `a Slack ${key || 'event'} event is not a message: the platform answers mentions of its app and messages in threads` };
  const found = slackThread(key, payload);
  if ('none' in found) return found;
  const { team, channel, thread_ts: threadTs, ts } = found.thread.at;
  if (typeof team !== 'string' || typeof channel !== 'string' || typeof threadTs !== 'string')
    return { none: `a Slack ${key} event names no channel and thread` };
  return { locator: { team, channel, threadTs, ts: typeof ts === 'string' ? ts : threadTs } };
}
