/**
 * The inbound hosts by source: `github` is GitHub's; a source named after a host (`gitlab`,
 * `gitlab-eu`, `bitbucket`, `slack-eng`) is that host's; any other source is custom and has no
 * host (no actor, no thread: custom events never command the agent).
 * @module
 */
import { hostKindOfSource } from '../schemas/webhook.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import { bitbucketInbound } from '../inbound/bitbucket.js';
import { githubInbound } from './github-inbound.js';
import { gitlabInbound } from '../inbound/gitlab.js';
import type { EventActor, InboundHost, InboundHostName } from '../inbound/inbound-host.js';
import { slackInbound } from '../inbound/slack.js';

/** Looked up when asked, not built when this module loads: the thread rules and GitHub's reader import each other through here. */
function hostNamed(name: InboundHostName): InboundHost {
  switch (name) {
    case 'github':
      return githubInbound;
    case 'gitlab':
      return gitlabInbound;
    case 'bitbucket':
      return bitbucketInbound;
    case 'slack':
      return slackInbound;
  }
}

/** The host whose events a source receives, by the source's name; `null` for a custom source. */
export function inboundHostName(source: string): InboundHostName | null {
  return source === GITHUB_SOURCE ? 'github' : hostKindOfSource(source);
}

/** The reader of a source's events, or `null` for a custom source. */
export function inboundHostOf(source: string): InboundHost | null {
  const name = inboundHostName(source);
  return name === null ? null : hostNamed(name);
}

/** Who wrote an event of `source` and what; a custom source's events name nobody. */
export function actorOf(source: string, eventKey: string, payload: unknown): EventActor {
  return inboundHostOf(source)?.actorOf(eventKey, payload) ?? { login: null, bot: false, association: null, text: null, comment: null };
}

/** The reader of a thread's host, by the thread key's prefix (`gitlab:…`); GitHub's for a key of no known host. */
export function inboundHostOfThread(threadKey: string): InboundHost {
  const prefix = threadKey.slice(0, Math.max(0, threadKey.indexOf(':')));
  return inboundHostOf(prefix) ?? githubInbound;
}
