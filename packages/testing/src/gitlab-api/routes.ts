/**
 * What the GitLab stand-in does for each operation it simulates, keyed by `operationId`. By the
 * time a handler runs the server has checked the token and the request against the description,
 * so handlers keep only GitLab's own rules: an unknown project or issue is a 404 (`404 Project
 * Not Found`), a second award of the same emoji by the same user is a 404 (`Award Emoji Name has
 * already been taken`), a merge request needs both branches and no open one from the same source
 * branch (409), notes list newest first unless asked otherwise, with GitLab's pagination headers.
 * @module
 */
import type { GitServer } from '../git-server/index.js';
import { keepMergeRequestRef } from './merge-request-refs.js';
import { awardView, gitlabError, issueView, memberView, mergeRequestView, noteView, type Origins, projectView } from './resources.js';
import { type GitLabState, type IssueRecord, type NoteableKind, type ProjectState, timestamp, type UserRecord } from './state.js';

export interface RouteContext {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  user: UserRecord;
  origins: Origins;
  /** The API root (`http://127.0.0.1:<port>/api/v4`), for `Link` headers. */
  apiUrl: string;
  /** The request's path and query relative to the API root. */
  path: string;
  state: GitLabState;
  git: GitServer | undefined;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (context: RouteContext) => Reply | Promise<Reply>;

const notFound = (what: string): Reply => ({ status: 404, body: gitlabError(`404 ${what} Not Found`) });

function projectOf(context: RouteContext): ProjectState | null {
  return context.state.project(String(context.params.id));
}

/** The issue or merge request the path names (`issue_iid`, `merge_request_iid` or `noteable_id`). */
function noteableOf(context: RouteContext, kind: NoteableKind): { project: ProjectState; record: IssueRecord } | Reply {
  const project = projectOf(context);
  if (!project) return notFound('Project');
  const iid = Number(context.params.noteable_id ?? context.params.issue_iid ?? context.params.merge_request_iid);
  const record = kind === 'issue' ? project.issues.get(iid) : project.mergeRequests.get(iid);
  if (!record) return notFound(kind === 'issue' ? 'Issue' : 'Merge Request');
  return { project, record };
}

/** GitLab's offset pagination: `page`/`per_page` (20 by default, at most 100), its `x-…` headers and `Link`. */
function paginate<T>(context: RouteContext, all: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(context.query.per_page ?? 20) || 20));
  const page = Math.max(1, Number(context.query.page ?? 1) || 1);
  const totalPages = Math.max(1, Math.ceil(all.length / perPage));
  const at = (n: number) => {
    const url = new URL(`${context.apiUrl}${context.path}`);
    url.searchParams.set('page', String(n));
    url.searchParams.set('per_page', String(perPage));
    return url.toString();
  };
  const links = [`<${at(1)}>; rel="first"`, `<${at(totalPages)}>; rel="last"`];
  if (page < totalPages) links.unshift(`<${at(page + 1)}>; rel="next"`);
  if (page > 1) links.unshift(`<${at(page - 1)}>; rel="prev"`);
  return {
    items: all.slice((page - 1) * perPage, page * perPage),
    headers: {
      link: links.join(', '),
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-total': String(all.length),
      'x-total-pages': String(totalPages),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
    },
  };
}

function award(context: RouteContext, kind: NoteableKind, onNote: boolean): Reply {
  const found = noteableOf(context, kind);
  if ('status' in found) return found;
  const { project, record } = found;
  let noteId: number | null = null;
  if (onNote) {
    const note = context.state.notes.get(Number(context.params.note_id));
    if (!note || note.projectId !== project.id || note.on.kind !== kind || note.on.iid !== record.iid) return notFound('Note');
    noteId = note.id;
  }
  const name = String(context.body.name);
  const on = { projectId: project.id, kind, iid: record.iid, noteId };
  const same = context.state.awards.find(
    (a) =>
      a.user.id === context.user.id &&
      a.name === name &&
      a.on.projectId === on.projectId &&
      a.on.kind === kind &&
      a.on.iid === on.iid &&
      a.on.noteId === noteId,
  );
  if (same) return { status: 404, body: gitlabError('404 Award Emoji Name has already been taken Not Found') };
  const created = { id: context.state.nextId(), name, user: context.user, on, createdAt: timestamp() };
  context.state.awards.push(created);
  return { status: 201, body: awardView(context.origins, created, noteId ?? record.id) };
}

function listNotes(context: RouteContext, kind: NoteableKind): Reply {
  const found = noteableOf(context, kind);
  if ('status' in found) return found;
  const orderBy = context.query.order_by === 'updated_at' ? 'updatedAt' : 'createdAt';
  const sign = context.query.sort === 'asc' ? 1 : -1;
  const filter = context.query.activity_filter;
  const notes = context.state
    .notesOf(found.project, { kind, iid: found.record.iid })
    .filter((note) => (filter === 'only_comments' ? !note.system : filter === 'only_activity' ? note.system : true))
    .sort((a, b) => sign * (Date.parse(a[orderBy]) - Date.parse(b[orderBy]) || a.id - b.id));
  const { items, headers } = paginate(context, notes);
  return { status: 200, body: items.map((note) => noteView(context.origins, found.project, note)), headers };
}

function createNote(context: RouteContext, kind: NoteableKind): Reply {
  const found = noteableOf(context, kind);
  if ('status' in found) return found;
  const body = String(context.body.body ?? '');
  if (body.trim() === '') return { status: 400, body: gitlabError({ note: ["can't be blank"] }) };
  const note = context.state.addNote(found.project, { kind, iid: found.record.iid }, { body, author: context.user });
  found.record.updatedAt = note.createdAt;
  return { status: 201, body: noteView(context.origins, found.project, note) };
}

function editNote(context: RouteContext, kind: NoteableKind): Reply {
  const found = noteableOf(context, kind);
  if ('status' in found) return found;
  const note = context.state.notes.get(Number(context.params.note_id));
  if (!note || note.projectId !== found.project.id || note.on.kind !== kind || note.on.iid !== found.record.iid) return notFound('Note');
  // Only its author may edit a note (GitLab answers 403 to anyone else).
  if (note.author.id !== context.user.id) return { status: 403, body: gitlabError('403 Forbidden') };
  if (typeof context.body.body === 'string') {
    if (context.body.body.trim() === '') return { status: 400, body: gitlabError({ note: ["can't be blank"] }) };
    note.body = context.body.body;
    note.updatedAt = timestamp();
  }
  return { status: 200, body: noteView(context.origins, found.project, note) };
}

function replyInDiscussion(context: RouteContext, kind: NoteableKind): Reply {
  const found = noteableOf(context, kind);
  if ('status' in found) return found;
  const discussionId = String(context.params.discussion_id);
  const thread = context.state.notesOf(found.project, { kind, iid: found.record.iid }).filter((note) => note.discussionId === discussionId);
  if (thread.length === 0) return notFound('Discussion');
  const body = String(context.body.body ?? '');
  if (body.trim() === '') return { status: 400, body: gitlabError({ note: ["can't be blank"] }) };
  // A reply turns a plain comment into a thread: its notes become `DiscussionNote`s (a diff's stay `DiffNote`s).
  for (const note of thread) if (note.type === null) note.type = 'DiscussionNote';
  const note = context.state.addNote(found.project, { kind, iid: found.record.iid }, { body, author: context.user, type: 'DiscussionNote', discussionId });
  return { status: 201, body: noteView(context.origins, found.project, note) };
}

/** `labels` replaces, `add_labels` and `remove_labels` change the labels (GitLab makes a label it does not have yet). */
function relabel(record: IssueRecord, body: Record<string, unknown>): void {
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String).filter((name) => name !== '') : []);
  if (body.labels !== undefined) record.labels = [...new Set(list(body.labels))];
  for (const name of list(body.add_labels)) if (!record.labels.includes(name)) record.labels.push(name);
  const removed = new Set(list(body.remove_labels));
  record.labels = record.labels.filter((name) => !removed.has(name));
}

function editIssuable(context: RouteContext, kind: NoteableKind): Reply {
  const found = noteableOf(context, kind);
  if ('status' in found) return found;
  if (Object.keys(context.body).length === 0) return { status: 400, body: { error: 'at least one parameter must be provided' } };
  const { project, record } = found;
  relabel(record, context.body);
  if (typeof context.body.title === 'string') record.title = context.body.title;
  if (typeof context.body.description === 'string') record.description = context.body.description;
  if (context.body.state_event === 'close') record.state = 'closed';
  if (context.body.state_event === 'reopen') record.state = 'opened';
  record.updatedAt = timestamp();
  if (kind === 'issue') return { status: 200, body: issueView(context.origins, project, record) };
  const request = project.mergeRequests.get(record.iid);
  return request ? { status: 200, body: mergeRequestView(context.origins, project, request) } : notFound('Merge Request');
}

/** The head commits of `branches` on the git server (`undefined`: no such branch); without a git server every branch exists. */
async function branchHeads(context: RouteContext, project: ProjectState, branches: string[]): Promise<(string | undefined)[]> {
  if (!context.git) return branches.map((branch) => `${branch}-head`);
  let refs: Record<string, string> = {};
  try {
    refs = await context.git.refs(project.path);
  } catch {
    refs = {};
  }
  return branches.map((branch) => refs[`refs/heads/${branch}`]);
}

async function createMergeRequest(context: RouteContext): Promise<Reply> {
  const project = projectOf(context);
  if (!project) return notFound('Project');
  const body = context.body as { title: string; source_branch: string; target_branch: string; description?: string };
  if (body.source_branch === body.target_branch) return { status: 400, body: gitlabError(['You can’t use same project/branch for source and target']) };
  const [source, target] = await branchHeads(context, project, [body.source_branch, body.target_branch]);
  if (!source) return { status: 400, body: gitlabError({ source_branch: ['is invalid'] }) };
  if (!target) return { status: 400, body: gitlabError({ target_branch: ['is invalid'] }) };
  for (const open of project.mergeRequests.values()) {
    if (open.state === 'opened' && open.sourceBranch === body.source_branch && open.targetBranch === body.target_branch)
      return { status: 409, body: gitlabError([`Another open merge request already exists for this source branch: !${open.iid}`]) };
  }
  const request = context.state.addMergeRequest(project, {
    title: body.title,
    description: body.description ?? null,
    author: context.user.username,
    sourceBranch: body.source_branch,
    targetBranch: body.target_branch,
    // GitLab reads a draft from the title.
    draft: /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s|\[wip\]|wip:|wip\s)/i.test(body.title),
    sha: source,
  });
  relabel(request, context.body);
  if (context.git) keepMergeRequestRef(context.git, project.path, request.iid, source);
  return { status: 201, body: mergeRequestView(context.origins, project, request) };
}

export const handlers: Record<string, Handler> = {
  getApiV4ProjectsId: (context) => {
    const project = projectOf(context);
    return project ? { status: 200, body: projectView(context.origins, project) } : notFound('Project');
  },
  getApiV4ProjectsIdMembersAllUserId: (context) => {
    const project = projectOf(context);
    if (!project) return notFound('Project');
    const userId = Number(context.params.user_id);
    const level = project.members.get(userId);
    const user = [...context.state.users.values()].find((candidate) => candidate.id === userId);
    return level !== undefined && user ? { status: 200, body: memberView(context.origins, user, level) } : { status: 404, body: gitlabError('404 Not found') };
  },
  postApiV4ProjectsIdIssuesIssueIidAwardEmoji: (context) => award(context, 'issue', false),
  postApiV4ProjectsIdIssuesIssueIidNotesNoteIdAwardEmoji: (context) => award(context, 'issue', true),
  postApiV4ProjectsIdMergeRequestsMergeRequestIidAwardEmoji: (context) => award(context, 'merge_request', false),
  postApiV4ProjectsIdMergeRequestsMergeRequestIidNotesNoteIdAwardEmoji: (context) => award(context, 'merge_request', true),
  getApiV4ProjectsIdIssuesNoteableIdNotes: (context) => listNotes(context, 'issue'),
  getApiV4ProjectsIdMergeRequestsNoteableIdNotes: (context) => listNotes(context, 'merge_request'),
  postApiV4ProjectsIdIssuesNoteableIdNotes: (context) => createNote(context, 'issue'),
  postApiV4ProjectsIdMergeRequestsNoteableIdNotes: (context) => createNote(context, 'merge_request'),
  putApiV4ProjectsIdIssuesNoteableIdNotesNoteId: (context) => editNote(context, 'issue'),
  putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId: (context) => editNote(context, 'merge_request'),
  postApiV4ProjectsIdIssuesNoteableIdDiscussionsDiscussionIdNotes: (context) => replyInDiscussion(context, 'issue'),
  postApiV4ProjectsIdMergeRequestsNoteableIdDiscussionsDiscussionIdNotes: (context) => replyInDiscussion(context, 'merge_request'),
  putApiV4ProjectsIdIssuesIssueIid: (context) => editIssuable(context, 'issue'),
  putApiV4ProjectsIdMergeRequestsMergeRequestIid: (context) => editIssuable(context, 'merge_request'),
  postApiV4ProjectsIdMergeRequests: createMergeRequest,
};
