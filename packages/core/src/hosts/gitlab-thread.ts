/**
 * Where a GitLab event was written, for answering there: the project and its issue
 * (`group/project#iid`) or merge request (`group/project!iid`), what asked (a note, or the issue
 * or merge request a new one opened) and the discussion to reply in when the note that asked was
 * written in one; what it asks about (title and description). Events without such a thread (a
 * push, a note on a commit or snippet) have none, and say why.
 * @module
 */
import { gitlabEventKey, gitlabThread } from '../inbound/gitlab.js';
import { object, text } from '../inbound/inbound-host.js';
import type { AnswerThread } from '../ports/answer-host.js';
import { hostKindOfSource } from '../schemas/webhook.js';
import type { GitLabNoteable } from './gitlab-api.js';

export const GITLAB_HOST = 'gitlab';

/** What the adapter keeps in a thread's locator. */
export interface GitLabLocator {
  /** The project's path (`group/subgroup/project`). */
  project: string;
  kind: GitLabNoteable['kind'];
  iid: number;
  /** The note that asked (awarded 👀), or `null`: the issue or merge request itself. */
  note_id: number | null;
  /** The discussion to reply in, when the note that asked was written in one; `null`: a new note. */
  discussion_id: string | null;
}

/** Sources of GitLab's webhooks: `gitlab`, or `gitlab-` and a suffix (`gitlab-eu`), as sources of that kind are named. */
export const isGitLabSource = (source: string): boolean => hostKindOfSource(source) === GITLAB_HOST;

/**
 * Note types written in a discussion, answered by a reply in it: a reply in a thread
 * (`DiscussionNote`) and a comment on a diff line (`DiffNote`). A plain comment (no type) is
 * answered by a new comment.
 */
const THREADED_NOTES = new Set(['DiscussionNote', 'DiffNote']);

/**
 * The thread of a GitLab event, with its subject, or why it has none: where it was written as the
 * inbound reader of GitLab events finds it (`gitlabThread`), and, for the answer, what it asks
 * about and whether the note that asked is in a discussion to reply in. `eventKey` `null` (a
 * delivery recorded without one) is named from the payload.
 */
export function gitlabAnswerThread(eventKey: string | null, payload: unknown): { thread: AnswerThread } | { none: string } {
  const named = eventKey === null ? gitlabEventKey(payload) : null;
  const found = gitlabThread(eventKey ?? (named?.ok ? named.key : ''), payload);
  if ('none' in found) return found;
  const { at, label, repository } = found.thread;
  const body = object(payload) ?? {};
  const attributes = object(body.object_attributes) ?? {};
  const kind: GitLabNoteable['kind'] = at.noteable === 'merge_request' ? 'merge_request' : 'issue';
  const isNote = at.note_id !== null;
  // A note's issue or merge request is beside it in the payload; an opened one is the event's object.
  const subject = isNote ? object(kind === 'issue' ? body.issue : body.merge_request) : attributes;
  const threaded = isNote && THREADED_NOTES.has(text(attributes.type) ?? '');
  const locator: GitLabLocator = {
    project: repository ?? '',
    kind,
    iid: Number(at.iid),
    note_id: typeof at.note_id === 'number' ? at.note_id : null,
    discussion_id: threaded && typeof at.discussion_id === 'string' ? at.discussion_id : null,
  };
  const title = text(subject?.title);
  return {
    thread: {
      host: GITLAB_HOST,
      label,
      repository,
      subject: title === null ? null : { title, body: typeof subject?.description === 'string' ? subject.description : '' },
      locator: { ...locator },
    },
  };
}
