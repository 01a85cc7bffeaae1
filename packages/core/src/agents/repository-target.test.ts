import { describe, expect, it } from 'vitest';
import { runRepository } from './repository-target.js';

const json = (value: unknown) => JSON.stringify(value);
const repository = { full_name: 'acme/app' };

describe('runRepository', () => {
  it("takes the automation's repository, and nothing without one or an event", () => {
    expect(runRepository('acme/app', null, null)).toEqual({ repository: 'acme/app' });
    expect(runRepository(null, null, json({ repository }))).toBeNull();
    expect(runRepository(null, 'ci', json({ repository }))).toBeNull();
    expect(runRepository(null, 'github', null)).toBeNull();
    expect(runRepository(null, 'github', 'not json')).toBeNull();
    expect(runRepository(null, 'github', json({ action: 'created' }))).toBeNull();
  });

  it("takes a GitHub event's repository, at the pull request's head", () => {
    expect(runRepository(null, 'github', json({ action: 'opened', repository }))).toEqual({ repository: 'acme/app', provider: 'github' });
    const pull = { number: 5, head: { ref: 'fix/bug', repo: { full_name: 'acme/app' } } };
    expect(runRepository(null, 'github', json({ action: 'opened', pull_request: pull, repository }))).toEqual({
      repository: 'acme/app',
      provider: 'github',
      pullRequest: 5,
      branch: 'fix/bug',
    });
    // A fork's branch is not this repository's: only the number.
    const fork = { number: 6, head: { ref: 'main', repo: { full_name: 'someone/app' } } };
    expect(runRepository(null, 'github', json({ pull_request: fork, repository }))).toMatchObject({ pullRequest: 6, branch: null });
    // A comment on a pull request.
    expect(runRepository(null, 'github', json({ action: 'created', issue: { number: 7, pull_request: { url: 'x' } }, repository }))).toMatchObject({
      pullRequest: 7,
      branch: null,
    });
    expect(runRepository(null, 'github', json({ action: 'created', issue: { number: 8 }, repository }))).toEqual({
      repository: 'acme/app',
      provider: 'github',
    });
  });

  it('takes the pushed branch, but not a deleted one', () => {
    expect(runRepository(null, 'github', json({ ref: 'refs/heads/feature/x', repository }))).toMatchObject({ branch: 'feature/x' });
    expect(runRepository(null, 'github', json({ ref: 'refs/heads/gone', deleted: true, repository }))).toEqual({ repository: 'acme/app', provider: 'github' });
    expect(runRepository(null, 'github', json({ ref: 'refs/tags/v1', repository }))).toEqual({ repository: 'acme/app', provider: 'github' });
  });

  it("keeps the automation's repository over the event's, with the event's head only when it is the same one", () => {
    const pull = { number: 5, head: { ref: 'fix/bug', repo: { full_name: 'acme/app' } } };
    expect(runRepository('acme/other', 'github', json({ pull_request: pull, repository }))).toEqual({ repository: 'acme/other' });
    expect(runRepository('Acme/App', 'github', json({ pull_request: pull, repository }))).toMatchObject({
      repository: 'Acme/App',
      pullRequest: 5,
      branch: 'fix/bug',
    });
  });
});
