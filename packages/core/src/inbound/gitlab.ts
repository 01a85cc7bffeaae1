/**
 * GitLab's webhook events (gitlab.com and self-managed), read as GitLab sends them.
 * - **Event key**, in GitLab's terms: the payload's `object_kind` and, where the event has one,
 *   its action (`object_attributes.action`, or the top-level `action` of release events):
 *   `merge_request.open`, `merge_request.update`, `issue.open`, `note.create`, `note.update`,
 *   `push`, `tag_push`, `pipeline`, `build`, `release.create`. A note without an action (GitLab
 *   before 16.11 sent notes only when created) is `note.create`; what a note is on stays in the
 *   payload (`object_attributes.noteable_type`: `Issue`, `MergeRequest`, `Commit`, `Snippet`),
 *   for filters. Emoji events are `emoji.award` and `emoji.revoke` (their `event_type`).
 * - **Delivery id**: `Idempotency-Key` (GitLab 17.4+, the same on every retry), else
 *   `X-Gitlab-Event-UUID`.
 * - **Actor**: `user` (`username`, `id`); push events name the pusher in `user_username`. GitLab
 *   does not say whether a user is a bot in webhooks: project and group access tokens' bot users
 *   (`project_12_bot_…`, `group_3_bot_…`), GitLab's own bots and system notes count as bots.
 * - **Thread**: the project (`path_with_namespace`) and the issue (`#iid`) or merge request
 *   (`!iid`) the event is on; a note's id and discussion id say where to reply.
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

/** GitLab's delivery id, the same on each retry (GitLab 17.4 and later). */
export const GITLAB_IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Sent by every GitLab since 14.8; recursive webhooks (triggered by earlier webhooks) share it. */
export const GITLAB_EVENT_UUID_HEADER = 'X-Gitlab-Event-UUID';

/**
 * The event key as a JMESPath over the payload, for what shows a source's naming as an
 * expression (the console's filter tester): it names every event as {@link gitlabEventKey} does.
 */
export const GITLAB_EVENT_KEY_EXPR =
  "object_kind == 'note' && join('.', ['note', object_attributes.action || 'create']) || object_kind == 'emoji' && event_type && join('.', ['emoji', event_type]) || (object_attributes.action || action) && join('.', [object_kind, object_attributes.action || action]) || object_kind || event_name";

/** Where a mention is written on GitLab: notes, and a new issue's or merge request's description. */
export const GITLAB_MENTION_EVENTS: readonly string[] = ['note.create', 'issue.open', 'merge_request.open'];

export function gitlabEventKey(payload: unknown): EventKeyResult {
  const body = object(payload);
  const kind = text(body?.object_kind) ?? text(body?.event_name);
  if (kind === null) return { ok: false, reason: 'the GitLab payload has no object_kind' };
  if (kind === 'emoji') {
    const type = text(body?.event_type);
    return { ok: true, key: type ? `emoji.${type}` : kind };
  }
  const action = text(object(body?.object_attributes)?.action) ?? text(body?.action);
  if (action !== null) return { ok: true, key: `${kind}.${action}` };
  return { ok: true, key: kind === 'note' ? 'note.create' : kind };
}

/** GitLab's id of the delivery: `Idempotency-Key`, else `X-Gitlab-Event-UUID`; `null` when it sent neither. */
export function gitlabDeliveryId(headers: InboundHeaders): string | null {
  return headerValue(headers, GITLAB_IDEMPOTENCY_HEADER) ?? headerValue(headers, GITLAB_EVENT_UUID_HEADER);
}

/** Bot users GitLab makes for project and group access tokens, and GitLab's own bots. */
const BOT_USERNAME =
  /^(?:(?:project|group)_\d+_bot(?:_[0-9a-f]+)?|ghost\d*|support-bot|alert-bot|security-bot|automation-bot\d*|gitlab-llm-bot|duo-developer)$/i;

const kindOf = (eventKey: string): string => eventKey.split('.')[0] ?? '';

export function gitlabActor(eventKey: string, payload: unknown): EventActor {
  const body = object(payload) ?? {};
  const user = object(body.user);
  const attributes = object(body.object_attributes);
  const login = text(user?.username) ?? text(body.user_username);
  const id = idText(user?.id) ?? idText(body.user_id);
  const [kind, action] = eventKey.split('.');
  // The text is the sender's own when they wrote it now: a note, or a new issue's or merge request's description.
  const own = kind === 'note' || ((kind === 'issue' || kind === 'merge_request' || kind === 'work_item') && action === 'open');
  const written = own ? (kind === 'note' ? text(attributes?.note) : text(attributes?.description)) : null;
  const bot = user?.bot === true || attributes?.system === true || (login !== null && BOT_USERNAME.test(login));
  const repository = text(object(body.project)?.path_with_namespace);
  return { host: 'gitlab', login, id, bot, association: null, text: written, comment: null, repository };
}

export function gitlabThread(eventKey: string, payload: unknown): InboundThreadResult {
  const body = object(payload) ?? {};
  const kind = kindOf(eventKey);
  const project = text(object(body.project)?.path_with_namespace);
  if (project === null) return { none: 'the GitLab event names no project' };
  const attributes = object(body.object_attributes);
  const projectId = positive(object(body.project)?.id) ?? positive(body.project_id);
  let on: { sigil: '#' | '!'; iid: number } | null = null;
  if (kind === 'note') {
    const type = text(attributes?.noteable_type);
    const iid = type === 'Issue' ? positive(object(body.issue)?.iid) : type === 'MergeRequest' ? positive(object(body.merge_request)?.iid) : null;
    if (iid === null)
      return {
        none: `a GitLab note on ${type === 'Commit' ? 'a commit' : type === 'Snippet' ? 'a snippet' : 'this'} has no issue or merge request to answer in`,
      };
    on = { sigil: type === 'Issue' ? '#' : '!', iid };
  } else if (kind === 'issue' || kind === 'work_item' || kind === 'merge_request') {
    const iid = positive(attributes?.iid);
    if (iid !== null) on = { sigil: kind === 'merge_request' ? '!' : '#', iid };
  }
  if (on === null) return { none: `a GitLab ${kind || 'event'} event has no issue or merge request to answer in` };
  const note = kind === 'note' ? positive(attributes?.id) : null;
  return {
    thread: {
      host: 'gitlab',
      key: `gitlab:${project.toLowerCase()}${on.sigil}${on.iid}`,
      label: `${project}${on.sigil}${on.iid}`,
      repository: project,
      at: {
        project_id: projectId,
        noteable: on.sigil === '!' ? 'merge_request' : 'issue',
        iid: on.iid,
        note_id: note,
        discussion_id: kind === 'note' ? text(attributes?.discussion_id) : null,
      },
    },
  };
}

export const gitlabInbound: InboundHost = {
  host: 'gitlab',
  actorOf: gitlabActor,
  threadOf: gitlabThread,
  isComment: (eventKey) => kindOf(eventKey) === 'note',
  mentionEvents: GITLAB_MENTION_EVENTS,
};
