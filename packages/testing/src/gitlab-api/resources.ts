/**
 * The stand-in's answers, shaped as GitLab's REST documentation shows them (notes, award emoji,
 * members, issues, merge requests, projects): the fields clients read, with GitLab's types.
 * @module
 */
import type { AwardRecord, IssueRecord, MergeRequestRecord, NoteRecord, ProjectState, UserRecord } from './state.js';

/** The stand-in's origin: web pages and clone URLs. */
export interface Origins {
  web: string;
}

export const userBasic = (origins: Origins, user: UserRecord) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  state: 'active',
  locked: false,
  avatar_url: null,
  web_url: `${origins.web}/${user.username}`,
});

const kindPath = (kind: 'issue' | 'merge_request') => (kind === 'issue' ? 'issues' : 'merge_requests');

export const noteView = (origins: Origins, project: ProjectState, note: NoteRecord) => {
  const on = note.on.kind === 'issue' ? project.issues.get(note.on.iid) : project.mergeRequests.get(note.on.iid);
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: userBasic(origins, note.author),
    created_at: note.createdAt,
    updated_at: note.updatedAt,
    system: note.system,
    noteable_id: on?.id ?? null,
    noteable_type: note.on.kind === 'issue' ? 'Issue' : 'MergeRequest',
    project_id: project.id,
    resolvable: note.type !== null,
    confidential: false,
    internal: false,
    imported: false,
    imported_from: 'none',
    noteable_iid: note.on.iid,
    commands_changes: {},
  };
};

export const awardView = (origins: Origins, award: AwardRecord, awardableId: number) => ({
  id: award.id,
  name: award.name,
  user: userBasic(origins, award.user),
  created_at: award.createdAt,
  updated_at: award.createdAt,
  awardable_id: awardableId,
  awardable_type: award.on.noteId !== null ? 'Note' : award.on.kind === 'issue' ? 'Issue' : 'MergeRequest',
  url: null,
});

export const memberView = (origins: Origins, user: UserRecord, accessLevel: number) => ({
  ...userBasic(origins, user),
  access_level: accessLevel,
  created_at: '2020-01-01T00:00:00.000Z',
  expires_at: null,
  membership_state: 'active',
});

const references = (project: ProjectState, sigil: '#' | '!', iid: number) => ({
  short: `${sigil}${iid}`,
  relative: `${sigil}${iid}`,
  full: `${project.path}${sigil}${iid}`,
});

export const issueView = (origins: Origins, project: ProjectState, issue: IssueRecord) => ({
  id: issue.id,
  iid: issue.iid,
  project_id: project.id,
  title: issue.title,
  description: issue.description,
  state: issue.state,
  created_at: issue.createdAt,
  updated_at: issue.updatedAt,
  closed_at: null,
  closed_by: null,
  labels: [...issue.labels],
  milestone: null,
  assignees: [],
  author: userBasic(origins, issue.author),
  type: 'ISSUE',
  assignee: null,
  user_notes_count: 0,
  merge_requests_count: 0,
  upvotes: 0,
  downvotes: 0,
  due_date: null,
  confidential: false,
  discussion_locked: null,
  issue_type: 'issue',
  web_url: `${origins.web}/${project.path}/-/${kindPath('issue')}/${issue.iid}`,
  references: references(project, '#', issue.iid),
});

export const mergeRequestView = (origins: Origins, project: ProjectState, request: MergeRequestRecord) => ({
  id: request.id,
  iid: request.iid,
  project_id: project.id,
  title: request.title,
  description: request.description,
  state: request.state,
  created_at: request.createdAt,
  updated_at: request.updatedAt,
  merged_by: null,
  merge_user: null,
  merged_at: null,
  closed_by: null,
  closed_at: null,
  target_branch: request.targetBranch,
  source_branch: request.sourceBranch,
  user_notes_count: 0,
  upvotes: 0,
  downvotes: 0,
  author: userBasic(origins, request.author),
  assignees: [],
  assignee: null,
  reviewers: [],
  source_project_id: project.id,
  target_project_id: project.id,
  labels: [...request.labels],
  draft: request.draft,
  work_in_progress: request.draft,
  milestone: null,
  merge_when_pipeline_succeeds: false,
  merge_status: 'can_be_merged',
  detailed_merge_status: 'mergeable',
  sha: request.sha,
  merge_commit_sha: null,
  squash_commit_sha: null,
  discussion_locked: null,
  should_remove_source_branch: null,
  force_remove_source_branch: false,
  reference: `!${request.iid}`,
  references: references(project, '!', request.iid),
  web_url: `${origins.web}/${project.path}/-/${kindPath('merge_request')}/${request.iid}`,
  squash: false,
  has_conflicts: false,
  blocking_discussions_resolved: true,
});

export const projectView = (origins: Origins, project: ProjectState) => {
  const slash = project.path.lastIndexOf('/');
  const namespace = project.path.slice(0, slash);
  const name = project.path.slice(slash + 1);
  return {
    id: project.id,
    description: null,
    name,
    name_with_namespace: project.path.split('/').join(' / '),
    path: name,
    path_with_namespace: project.path,
    created_at: '2020-01-01T00:00:00.000Z',
    default_branch: project.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@127.0.0.1:${project.path}.git`,
    http_url_to_repo: `${origins.web}/${project.path}.git`,
    web_url: `${origins.web}/${project.path}`,
    visibility: project.visibility,
    namespace: {
      id: 1,
      name: namespace,
      path: namespace.split('/').pop(),
      kind: 'group',
      full_path: namespace,
      parent_id: null,
      web_url: `${origins.web}/groups/${namespace}`,
    },
    empty_repo: project.defaultBranch === null,
    archived: false,
  };
};

/** GitLab's error body: `{"message": "404 Project Not Found"}`, or a list or map of problems. */
export const gitlabError = (message: unknown) => ({ message });
