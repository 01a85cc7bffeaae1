import { describe, expect, it } from 'vitest';
import { runRepository } from './repository-target.js';
import { gitlabRepositoryTarget } from './gitlab-repository.js';

const project = { id: 12, path_with_namespace: 'acme/platform/app' };

describe('the repository of a run started by a GitLab event', () => {
  it('is the merge request’s head for a note on it or its own event (its branch only from the same project)', () => {
    const note = { object_kind: 'note', project, merge_request: { iid: 7, source_branch: 'feature', source_project_id: 12, target_project_id: 12 } };
    expect(gitlabRepositoryTarget(note)).toEqual({ repository: 'acme/platform/app', provider: 'gitlab', pullRequest: 7, branch: 'feature' });
    const fromFork = {
      object_kind: 'merge_request',
      project,
      object_attributes: { iid: 8, source_branch: 'main', source_project_id: 99, target_project_id: 12 },
    };
    expect(gitlabRepositoryTarget(fromFork)).toEqual({ repository: 'acme/platform/app', provider: 'gitlab', pullRequest: 8, branch: null });
  });

  it('is the pushed branch for a push, the project for an issue, nothing without a project', () => {
    expect(gitlabRepositoryTarget({ object_kind: 'push', project, ref: 'refs/heads/fix', after: 'a'.repeat(40) })).toEqual({
      repository: 'acme/platform/app',
      provider: 'gitlab',
      branch: 'fix',
    });
    expect(gitlabRepositoryTarget({ object_kind: 'push', project, ref: 'refs/heads/gone', after: '0'.repeat(40) })).toEqual({
      repository: 'acme/platform/app',
      provider: 'gitlab',
    });
    expect(gitlabRepositoryTarget({ object_kind: 'issue', project, object_attributes: { iid: 3 } })).toEqual({
      repository: 'acme/platform/app',
      provider: 'gitlab',
    });
    expect(gitlabRepositoryTarget({ object_kind: 'issue' })).toBeNull();
  });

  it('comes from sources named gitlab and gitlab-…; an automation’s repository on them is on GitLab', () => {
    const payload = JSON.stringify({ object_kind: 'issue', project, object_attributes: { iid: 3 } });
    expect(runRepository(null, 'gitlab-eu', payload)).toEqual({ repository: 'acme/platform/app', provider: 'gitlab' });
    expect(runRepository('acme/lib', 'gitlab', payload)).toEqual({ repository: 'acme/lib', provider: 'gitlab' });
    expect(runRepository('acme/lib', 'github', payload)).toEqual({ repository: 'acme/lib' });
  });
});
