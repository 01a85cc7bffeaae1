/**
 * Bitbucket Cloud's webhook events, read as Bitbucket sends them.
 * - **Event key**: the `X-Event-Key` header, in Bitbucket's own spelling: `repo:push`,
 *   `pullrequest:created`, `pullrequest:comment_created`, `issue:comment_created`, ...
 * - **Delivery id**: `X-Request-UUID`, the request's id, which Bitbucket repeats on its retries
 *   (`X-Attempt-Number` counts them); `X-Hook-UUID` names the webhook, not the delivery.
 * - **Actor**: `actor` — its `nickname` as the login, its `account_id` as the id; an account that
 *   is not a `user` (an app user, a team) is no person, so counts as a bot. Bitbucket writes a
 *   mention picked from its autocomplete as `@{<account id>}` in the comment's `content.raw`.
 * - **Thread**: the repository (`workspace/repo`) and the pull request or issue the event is on;
 *   a comment's id (and its parent's) say where to reply.
 * @module
 */
import {
  idText,
  object,
  positive,
  text,
  type InboundHost,
  type InboundThreadResult,
  headerValue,
  type EventActor,
  type EventKeyResult,
  type InboundHeaders,
} from './inbound-host.js';

export const BITBUCKET_EVENT_KEY_HEADER = 'X-Event-Key';
export const BITBUCKET_REQUEST_ID_HEADER = 'X-Request-UUID';
export const BITBUCKET_SIGNATURE_HEADER = 'X-Hub-Signature';

/** Where a mention is written on Bitbucket: comments on pull requests and issues, and a new pull request's or issue's text. */
export const BITBUCKET_MENTION_EVENTS: readonly string[] = ['pullrequest:comment_created', 'issue:comment_created', 'pullrequest:created', 'issue:created'];

const EVENT_KEY = /^[a-z_]+:[a-z_]+$/;

export function bitbucketEventKey(headers: InboundHeaders): EventKeyResult {
  const value = headerValue(headers, BITBUCKET_EVENT_KEY_HEADER);
  if (!value) return { ok: false, reason: `header ${BITBUCKET_EVENT_KEY_HEADER} is missing or empty` };
  if (!EVENT_KEY.test(value)) return { ok: false, reason: `header ${BITBUCKET_EVENT_KEY_HEADER} is not a Bitbucket event key` };
  return { ok: true, key: value };
}

export function bitbucketDeliveryId(headers: InboundHeaders): string | null {
  return headerValue(headers, BITBUCKET_REQUEST_ID_HEADER);
}

/** `pullrequest` of `pullrequest:created`. */
const scopeOf = (eventKey: string): string => eventKey.split(':')[0] ?? '';
/** `created` of `pullrequest:created`. */
const actionOf = (eventKey: string): string => eventKey.split(':')[1] ?? '';

/** The text the actor wrote with this event: a comment's, or a new pull request's or issue's. */
function writtenText(eventKey: string, body: Record<string, unknown>): string | null {
  const action = actionOf(eventKey);
  if (action === 'comment_created' || action === 'comment_updated' || action === 'commit_comment_created')
    return text(object(object(body.comment)?.content)?.raw);
  if (eventKey === 'pullrequest:created') {
    const pull = object(body.pullrequest);
    return text(pull?.description) ?? text(object(pull?.summary)?.raw);
  }
  if (eventKey === 'issue:created') return text(object(object(body.issue)?.content)?.raw);
  return null;
}

export function bitbucketActor(eventKey: string, payload: unknown): EventActor {
  const body = object(payload) ?? {};
  const actor = object(body.actor);
  const type = text(actor?.type);
  return {
    host: 'bitbucket',
    login: text(actor?.nickname),
    id: idText(actor?.account_id) ?? idText(actor?.uuid),
    bot: actor !== null && type !== 'user',
    association: null,
    text: writtenText(eventKey, body),
    comment: null,
    repository: text(object(body.repository)?.full_name),
  };
}

export function bitbucketThread(eventKey: string, payload: unknown): InboundThreadResult {
  const body = object(payload) ?? {};
  const scope = scopeOf(eventKey);
  const repository = text(object(body.repository)?.full_name);
  if (repository === null || !repository.includes('/')) return { none: 'the Bitbucket event names no repository' };
  const pull = scope === 'pullrequest' ? positive(object(body.pullrequest)?.id) : null;
  const issue = scope === 'issue' ? positive(object(body.issue)?.id) : null;
  if (pull === null && issue === null) return { none: `a Bitbucket ${eventKey || 'event'} event has no pull request or issue to answer in` };
  const comment = object(body.comment);
  const path = pull !== null ? `pull-requests/${pull}` : `issues/${issue}`;
  return {
    thread: {
      host: 'bitbucket',
      key: `bitbucket:${repository.toLowerCase()}/${path}`,
      label: `${repository}${pull !== null ? ` pull request #${pull}` : `#${issue}`}`,
      repository,
      at: {
        pullrequest_id: pull,
        issue_id: issue,
        comment_id: positive(comment?.id),
        parent_id: positive(object(comment?.parent)?.id),
      },
    },
  };
}

export const bitbucketInbound: InboundHost = {
  host: 'bitbucket',
  actorOf: bitbucketActor,
  threadOf: bitbucketThread,
  isComment: (eventKey) => actionOf(eventKey) === 'comment_created' || actionOf(eventKey) === 'comment_updated',
  mentionEvents: BITBUCKET_MENTION_EVENTS,
};
