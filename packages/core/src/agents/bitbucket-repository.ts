/**
 * The repository a run started by a Bitbucket event works on, and where: a pull request's source
 * branch (when it lives in the same repository: a fork's branch is not ours), the pushed branch of
 * a `repo:push`, else the repository's default branch. Bitbucket Cloud keeps no git ref per pull
 * request, so the branch is how its head is checked out; a push to it updates the pull request.
 * @module
 */
type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Where a Bitbucket event's repository is checked out (`branch: null`: its default branch); `null` for an event naming none. */
export function bitbucketRepositoryTarget(payload: unknown): { repository: string; provider: 'bitbucket'; branch: string | null } | null {
  const body = object(payload);
  const repository = text(object(body?.repository)?.full_name);
  if (!repository) return null;
  const source = object(object(body?.pullrequest)?.source);
  if (source) {
    const from = text(object(source.repository)?.full_name);
    const same = from === null || from.toLowerCase() === repository.toLowerCase();
    return { repository, provider: 'bitbucket', branch: same ? text(object(source.branch)?.name) : null };
  }
  const changes = object(body?.push)?.changes;
  const pushed = Array.isArray(changes) ? object(object(changes.at(-1))?.new) : null;
  return { repository, provider: 'bitbucket', branch: pushed?.type === 'branch' ? text(pushed.name) : null };
}
