/**
 * Pull requests and their review comments as GitHub answers them: the full pull request
 * (`pulls/get`, `pulls/create`), the `pull-request-simple` of lists (the full one less a dozen
 * members GitHub computes only for a single pull request) and the review comment.
 * @module
 */
import {
  type AuthorAssociation,
  type label,
  nodeId,
  type Origins,
  type PullRequestRecord,
  type repository,
  type ReviewCommentRecord,
  simpleUser,
  type UserRecord,
} from './resources.js';

export interface PullRequestContext {
  repository: ReturnType<typeof repository>;
  owner: UserRecord;
  labels: ReturnType<typeof label>[];
  state: 'open' | 'closed';
  association: AuthorAssociation;
}

/** A pull request as `GET /repos/{owner}/{repo}/pulls` lists it. */
export function pullRequestSimple(origins: Origins, pull: PullRequestRecord, context: PullRequestContext) {
  const api = `${origins.api}/repos/${pull.repository}`;
  const html = `${origins.web}/${pull.repository}/pull/${pull.number}`;
  const self = `${api}/pulls/${pull.number}`;
  const side = (which: { ref: string; sha: string }) => ({
    label: `${context.owner.login}:${which.ref}`,
    ref: which.ref,
    sha: which.sha,
    user: simpleUser(origins, context.owner),
    repo: context.repository,
  });
  return {
    url: self,
    id: pull.id,
    node_id: nodeId('PR', pull.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${pull.number}`,
    commits_url: `${self}/commits`,
    review_comments_url: `${self}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${pull.number}/comments`,
    statuses_url: `${api}/statuses/${pull.head.sha}`,
    number: pull.number,
    state: context.state,
    locked: false,
    title: pull.title,
    user: simpleUser(origins, pull.user),
    body: pull.body,
    labels: context.labels,
    milestone: null,
    active_lock_reason: null,
    created_at: pull.createdAt,
    updated_at: pull.createdAt,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pull.head),
    base: side(pull.base),
    _links: {
      self: { href: self },
      html: { href: html },
      issue: { href: `${api}/issues/${pull.number}` },
      comments: { href: `${api}/issues/${pull.number}/comments` },
      review_comments: { href: `${self}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${self}/commits` },
      statuses: { href: `${api}/statuses/${pull.head.sha}` },
    },
    author_association: context.association,
    auto_merge: null,
    draft: pull.draft,
  };
}

/** A pull request as `GET /repos/{owner}/{repo}/pulls/{pull_number}` answers it. */
export function pullRequest(origins: Origins, pull: PullRequestRecord, context: PullRequestContext & { comments: number; reviewComments: number }) {
  return {
    ...pullRequestSimple(origins, pull, context),
    merged: false,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: context.comments,
    review_comments: context.reviewComments,
    maintainer_can_modify: pull.maintainerCanModify,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

export function reviewComment(origins: Origins, comment: ReviewCommentRecord, association: AuthorAssociation) {
  const api = `${origins.api}/repos/${comment.repository}`;
  const self = `${api}/pulls/comments/${comment.id}`;
  const html = `${origins.web}/${comment.repository}/pull/${comment.pullNumber}#discussion_r${comment.id}`;
  const pull = `${api}/pulls/${comment.pullNumber}`;
  // `position` (an index into the diff) is left out: there is no diff to count in, and the schema
  // lets it be absent. A comment on a whole file has no line either.
  const line = comment.line === null ? {} : { line: comment.line, original_line: comment.line, side: comment.side };
  return {
    url: self,
    pull_request_review_id: comment.reviewId,
    id: comment.id,
    node_id: nodeId('PRRC', comment.id),
    diff_hunk: comment.diffHunk,
    path: comment.path,
    commit_id: comment.commitId,
    original_commit_id: comment.commitId,
    // GitHub leaves the member out of a comment that starts a thread.
    ...(comment.inReplyToId === null ? {} : { in_reply_to_id: comment.inReplyToId }),
    user: simpleUser(origins, comment.user),
    body: comment.body,
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    html_url: html,
    pull_request_url: pull,
    author_association: association,
    _links: { self: { href: self }, html: { href: html }, pull_request: { href: pull } },
    start_line: null,
    original_start_line: null,
    start_side: null,
    ...line,
    subject_type: comment.line === null ? 'file' : 'line',
  };
}
