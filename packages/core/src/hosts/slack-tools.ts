/**
 * The agent's Slack tool for one run (`slack_reply`, an {@link AgentHostTools} of host `slack`):
 * a reply in the Slack thread the run's event was written in, with the app's bot token the
 * automation's owner stored. Slack has no repositories, labels or pull requests, so the tools
 * have none; a reply goes only to the run's own thread (the agent names no channel). Bad input
 * and Slack's refusals are `PlatformError`s whose messages say why; none holds the token. Every
 * reply carries the platform's mark (message metadata), as the agent's GitHub comments carry the
 * hidden marker.
 * @module
 */
import { marked } from '../github/platform-marker.js';
import { PlatformError, validationError } from '../kernel/errors.js';
import type { AgentHostTools } from '../ports/agent-runner.js';
import { createSlackApi, SlackError, type SlackApi } from './slack-api.js';
import { SLACK_HOST, slackLocatorOf, type SlackLocator } from './slack-thread.js';
import { slackMessage } from './slack-message.js';

/** What a run's Slack tool may reach: the thread of its event, when it came from Slack. */
export interface SlackToolScope {
  thread: Pick<SlackLocator, 'team' | 'channel' | 'threadTs'> | null;
  /** Told of each reply the agent posts, for the audit log. */
  onReply?: (reply: { channel: string; threadTs: string; url: string }) => Promise<void>;
}

export interface SlackAgentToolsOptions {
  /** The Slack Web API for a bot token and host. Default: `@slack/web-api`. */
  apiFor?(token: string, host: string | null): SlackApi;
}

/** The Markdown a reply may hold: Slack takes 40,000 characters of text (a longer mrkdwn text is cut, and says so). */
const MAX_BODY = 40_000;

/** The scope of a run whose delivery came from `source`: its event's Slack thread, if any. */
export function slackToolScope(
  source: string | null,
  eventKey: string | null,
  payloadJson: string | null,
  isSlack: (source: string) => boolean,
): SlackToolScope {
  if (source === null || payloadJson === null || !isSlack(source)) return { thread: null };
  try {
    const found = slackLocatorOf(eventKey, JSON.parse(payloadJson));
    return 'locator' in found ? { thread: { team: found.locator.team, channel: found.locator.channel, threadTs: found.locator.threadTs } } : { thread: null };
  } catch {
    return { thread: null };
  }
}

function refused(error: unknown): never {
  if (error instanceof SlackError) throw new PlatformError(error.status === null ? 'UNAVAILABLE' : 'BAD_REQUEST', error.message, { cause: error });
  throw error;
}

export function createSlackAgentTools(
  scope: SlackToolScope,
  credentials: { token: string; host: string | null },
  options: SlackAgentToolsOptions = {},
): AgentHostTools {
  const apiFor = options.apiFor ?? createSlackApi;
  let api: SlackApi | null = null;
  const slack = () => {
    api ??= apiFor(credentials.token, credentials.host);
    return api;
  };
  return {
    host: SLACK_HOST,
    repositories: [],
    thread: null,
    async comment(input) {
      if (input.repository !== undefined) throw validationError(['repository'], "a Slack reply goes to the run's thread: it takes no repository");
      if (input.number !== undefined) throw validationError(['number'], "a Slack reply goes to the run's thread: it takes no number");
      const body = input.body;
      if (typeof body !== 'string' || body.trim() === '') throw validationError(['body'], 'body must not be empty');
      if (body.length > MAX_BODY) throw validationError(['body'], `body is longer than ${MAX_BODY} characters`);
      const thread = scope.thread;
      if (!thread) throw new PlatformError('BAD_REQUEST', "this run's event was not written in a Slack thread: there is no thread to reply in");
      const posted = await slack()
        .postReply(thread.channel, thread.threadTs, slackMessage(marked(body)))
        .catch(refused);
      await scope.onReply?.({ channel: thread.channel, threadTs: thread.threadTs, url: posted.url });
      return { id: posted.ts, url: posted.url };
    },
  };
}
