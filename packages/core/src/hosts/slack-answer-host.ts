/**
 * Slack on the answer-back port: an event's thread is the Slack thread it was written in — the
 * workspace, the channel and the thread's first message (`thread_ts`, or the message's own `ts`
 * when it starts one) — for a mention of the app (`app_mention`) and for messages in a thread.
 * It is acknowledged with 👀 on the message that asked; the run's message ("on it", then the
 * outcome, edited in place) and approval requests (with Approve and Reject buttons) are replies
 * in the thread, in mrkdwn, marked with the platform's metadata so a run finds its message again.
 * The agent's tool replies in the same thread (`slack_reply`, see `slack-tools.ts`).
 *
 * With the bot token of the Slack app (`xoxb-…`) the automation's owner stored as their `slack`
 * provider token (its `host`: Slack's domain, `slack.com` when empty), through `@slack/web-api`.
 * @module
 */
import type { AnswerChannel, AnswerHost } from '../ports/answer-host.js';
import { hostKindOfSource } from '../schemas/webhook.js';
import { createSlackApi, slackTs, type SlackApi } from './slack-api.js';
import { approvalMessage, SLACK_METADATA_EVENT, slackMessage } from './slack-message.js';
import { createSlackAgentTools } from './slack-tools.js';
import { SLACK_HOST, slackLocatorOf, slackThreadLabel, type SlackLocator } from './slack-thread.js';

export interface SlackAnswerHostOptions {
  /** The Slack Web API for a bot token and host. Default: `@slack/web-api`. */
  apiFor?(token: string, host: string | null): SlackApi;
  /** Whether deliveries of `source` are Slack's. Default: the Slack sources (`slack`, `slack-…`). */
  handles?(source: string): boolean;
}

export function createSlackAnswerHost(options: SlackAnswerHostOptions = {}): AnswerHost {
  const apiFor = options.apiFor ?? createSlackApi;
  return {
    name: SLACK_HOST,
    handles: options.handles ?? ((source) => hostKindOfSource(source) === 'slack'),
    threadOf(eventKey, payload) {
      const found = slackLocatorOf(eventKey, payload);
      if ('none' in found) return found;
      const { locator } = found;
      return { thread: { host: SLACK_HOST, label: slackThreadLabel(locator), repository: null, subject: null, locator: { ...locator } } };
    },
    channel(thread, owner) {
      const slack = owner.settings.providerTokens.slack;
      if (!slack?.token)
        return {
          none: `no Slack bot token is stored for the automation's owner (${owner.userId}); store the app's xoxb- token as their slack provider token`,
        };
      let api: SlackApi;
      try {
        api = apiFor(slack.token, slack.host);
      } catch (error) {
        return { none: error instanceof Error ? error.message : String(error) };
      }
      return slackChannel(api, thread.locator as unknown as SlackLocator);
    },
    agentTools({ thread, owner }) {
      const slack = owner.settings.providerTokens.slack;
      // Its one tool replies in the event's thread: outside one there is nothing to reply in.
      if (!slack?.token || !thread) return null;
      const { team, channel, threadTs } = thread.locator as unknown as SlackLocator;
      return createSlackAgentTools({ thread: { team, channel, threadTs } }, slack, options.apiFor ? { apiFor: options.apiFor } : {});
    },
  };
}

function slackChannel(api: SlackApi, locator: SlackLocator): AnswerChannel {
  const { channel, threadTs } = locator;
  return {
    acknowledge: () => api.addReaction(channel, locator.ts, 'eyes'),
    post: async (body) => {
      const posted = await api.postReply(channel, threadTs, slackMessage(body));
      return { id: posted.ts, url: posted.url };
    },
    askApproval: async (body, held) => {
      const posted = await api.postReply(channel, threadTs, approvalMessage(body, held));
      return { id: posted.ts, url: posted.url };
    },
    edit: async (id, body) => {
      const edited = await api.updateMessage(channel, String(id), slackMessage(body));
      return edited ? { id: edited.ts, url: edited.url } : null;
    },
    async find(marker, since) {
      // Only the app's own messages: metadata is written by apps alone, and no other app's counts.
      const [self, messages] = await Promise.all([api.identity(), api.threadMessages(channel, threadTs, slackTs(since))]);
      const ours = messages.filter(
        (message) =>
          message.metadata?.event_type === SLACK_METADATA_EVENT &&
          message.metadata.event_payload.marker === marker &&
          ((self.botId !== null && message.botId === self.botId) || message.user === self.userId),
      );
      const newest = ours.at(-1);
      return newest ? { id: newest.ts, url: await api.permalink(channel, newest.ts) } : null;
    },
  };
}
