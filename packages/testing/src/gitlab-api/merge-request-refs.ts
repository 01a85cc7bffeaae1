/**
 * GitLab keeps each merge request's head as `refs/merge-requests/<iid>/head` in the project's
 * repository (how a merge request is fetched, a fork's too); the stand-in writes that ref on its
 * git server when a merge request is opened.
 * @module
 */
import { execFileSync } from 'node:child_process';
import type { GitServer } from '../git-server/index.js';

/** Points `refs/merge-requests/<iid>/head` of `project` at `commit` (a commit id or a ref); nothing when that does not resolve (a branch that is not there). */
export function keepMergeRequestRef(git: GitServer, project: string, iid: number, commit: string): void {
  try {
    execFileSync('git', ['--git-dir', git.pathOf(project), 'update-ref', `refs/merge-requests/${iid}/head`, commit], { stdio: 'ignore' });
  } catch {
    // No such repository or branch on the git server: the merge request has no head to fetch.
  }
}
