/**
 * Which repository a run started by a GitLab event works on: the event's project (its path, on
 * the owner's GitLab host), at the merge request's head for merge request events and notes on a
 * merge request (its source branch when that lives in the same project: a fork's is not ours),
 * at the pushed branch for pushes.
 * @module
 */
import type { RepositoryTarget } from './git-checkout.js';

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const string = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

/** The project and merge request or branch of a GitLab event's payload, or `null` when it names no project. */
export function gitlabRepositoryTarget(payload: unknown): RepositoryTarget | null {
  const body = object(payload);
  const project = object(body?.project);
  const path = string(project?.path_with_namespace);
  if (!body || !path) return null;
  const kind = string(body.object_kind);
  const request = kind === 'merge_request' ? object(body.object_attributes) : kind === 'note' ? object(body.merge_request) : null;
  const iid = positive(request?.iid);
  if (request && iid) {
    const projectId = positive(project?.id) ?? positive(request.target_project_id);
    const sameProject = positive(request.source_project_id) !== null && positive(request.source_project_id) === projectId;
    return { repository: path, provider: 'gitlab', pullRequest: iid, branch: sameProject ? string(request.source_branch) : null };
  }
  const ref = string(body.ref);
  const deleted = typeof body.after === 'string' && /^0+$/.test(body.after);
  if (kind === 'push' && ref?.startsWith('refs/heads/') && !deleted) return { repository: path, provider: 'gitlab', branch: ref.slice('refs/heads/'.length) };
  return { repository: path, provider: 'gitlab' };
}
