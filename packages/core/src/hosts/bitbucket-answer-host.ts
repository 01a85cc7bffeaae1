/**
 * Bitbucket Cloud on the answer-back port: an event's thread is its pull request
 * (`pullrequest:*`, `pullrequest:comment_*`), named `workspace/repo#id`; the run's comment goes in
 * the pull request's conversation, or — when what asked was an inline comment or a reply — as a
 * reply in that comment's thread (`parent.id`); the agent's Bitbucket tools act in the event's
 * repository. With the owner's Bitbucket token (`provider_tokens.bitbucket`, sent as a Bearer
 * token).
 *
 * Bitbucket has no reactions: the acknowledgement is the run's "on it" comment, which the run
 * reporter posts right after acknowledging, so `acknowledge()` adds nothing of its own (a second
 * comment would only be noise). Events of Bitbucket's issue tracker (`issue:*`) are not answered:
 * Bitbucket's current API description no longer has the issue tracker.
 * @module
 */
import type { AnswerChannel, AnswerHost, AnswerThread } from '../ports/answer-host.js';
import { bitbucketRepositoryOf, createBitbucketApi, type BitbucketApi } from './bitbucket-api.js';
import { bitbucketMarkdown } from './bitbucket-markdown.js';
import { bitbucketRepositoryName, createBitbucketAgentTools } from './bitbucket-tools.js';

export const BITBUCKET_HOST = 'bitbucket';

export interface BitbucketAnswerHostOptions {
  /** The Bitbucket API for a token and host. Default: {@link createBitbucketApi}. */
  apiFor?(token: string, host: string | null): BitbucketApi;
}

/** What the adapter keeps in a thread's locator. */
interface BitbucketLocator {
  repository: string;
  pullRequest: number;
  /** The comment whose thread the answer goes in (an inline comment, a reply); `null`: the pull request's conversation. */
  replyTo: number | null;
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

/** Sources of Bitbucket's events: `bitbucket`, or `bitbucket-` and a suffix (a second workspace). */
export const isBitbucketSource = (source: string): boolean => source === BITBUCKET_HOST || source.startsWith(`${BITBUCKET_HOST}-`);

/** The pull request an event is about, and where in it to answer; or why it has none. */
export function bitbucketEventThread(eventKey: string | null, payload: unknown): { thread: AnswerThread } | { none: string } {
  const body = object(payload);
  const scope = eventKey?.split(':')[0] ?? '';
  if (scope === 'issue') return { none: "Bitbucket issues are not answered (Bitbucket's API no longer has the issue tracker); only pull requests are" };
  if (scope !== 'pullrequest') return { none: `a Bitbucket ${eventKey ?? 'event'} event has no pull request to answer in` };
  const repository = object(body?.repository)?.full_name;
  if (typeof repository !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(repository)) return { none: 'the Bitbucket event names no repository' };
  const pull = object(body?.pullrequest);
  const pullRequest = positive(pull?.id);
  if (pullRequest === null) return { none: `the Bitbucket ${eventKey} event names no pull request` };
  const comment = object(body?.comment);
  // An inline comment or a reply is answered in its own thread; a comment on the whole pull request, in the conversation.
  const threaded = comment !== null && (object(comment.inline) !== null || object(comment.parent) !== null);
  const locator: BitbucketLocator = { repository, pullRequest, replyTo: threaded ? positive(comment?.id) : null };
  const title = typeof pull?.title === 'string' ? pull.title : null;
  const description = typeof pull?.description === 'string' ? pull.description : object(pull?.summary)?.raw;
  return {
    thread: {
      host: BITBUCKET_HOST,
      label: `${repository}#${pullRequest}`,
      repository,
      subject: title === null ? null : { title, body: typeof description === 'string' ? description : '' },
      locator: { ...locator },
    },
  };
}

export function createBitbucketAnswerHost(options: BitbucketAnswerHostOptions = {}): AnswerHost {
  const apiFor = options.apiFor ?? ((token: string, host: string | null) => createBitbucketApi(token, host));
  return {
    name: BITBUCKET_HOST,
    handles: isBitbucketSource,
    threadOf: bitbucketEventThread,
    channel(thread, owner) {
      const bitbucket = owner.settings.providerTokens.bitbucket;
      if (!bitbucket?.token) return { none: `no Bitbucket token is stored for the automation's owner (${owner.userId}); store one in their settings` };
      let api: BitbucketApi;
      try {
        api = apiFor(bitbucket.token, bitbucket.host);
      } catch (error) {
        return { none: error instanceof Error ? error.message : String(error) };
      }
      return bitbucketChannel(api, thread.locator as unknown as BitbucketLocator);
    },
    agentTools(input) {
      const bitbucket = input.owner.settings.providerTokens.bitbucket;
      // Outside a Bitbucket pull request (a manual dispatch, a push) the run gets no Bitbucket tools.
      if (!bitbucket?.token || !input.thread) return null;
      const locator = input.thread.locator as unknown as BitbucketLocator;
      // The thread's repository, and the automation's when it names a Bitbucket repository.
      const repositories: string[] = [];
      for (const name of input.repositories.map(bitbucketRepositoryName))
        if (name && !repositories.some((known) => known.toLowerCase() === name.toLowerCase())) repositories.push(name);
      return createBitbucketAgentTools(
        {
          repositories,
          thread: { repository: locator.repository, number: locator.pullRequest },
          pullRequest: input.pullRequest,
          onPullRequest: input.onPullRequest,
          onThreadAction: input.onThreadAction,
        },
        { token: bitbucket.token, host: bitbucket.host },
        { apiFor },
      );
    },
  };
}

function bitbucketChannel(api: BitbucketApi, locator: BitbucketLocator): AnswerChannel {
  const repository = bitbucketRepositoryOf(locator.repository);
  return {
    // No reactions on Bitbucket: the "on it" comment that follows is the acknowledgement.
    acknowledge: async () => {},
    post: (body) => api.createComment(repository, locator.pullRequest, bitbucketMarkdown(body), locator.replyTo),
    edit: (id, body) => api.updateComment(repository, locator.pullRequest, Number(id), bitbucketMarkdown(body)),
    find: (marker, since) => api.findComment(repository, locator.pullRequest, marker, since),
  };
}
