/**
 * Which repositories a run's GitHub tools reach: the repository of the GitHub event that started
 * it (and its issue or pull request, the default thread), the automation's `selected_repository`
 * when it names a GitHub repository, then those its `github_repositories` add. Nothing else.
 * @module
 */
import type { AutomationRecord } from '../schemas/automation.js';
import { GITHUB_REPOSITORY_PATTERN } from '../schemas/automation.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import { eventThread } from './event-thread.js';
import type { GitHubToolScope } from './github-tools.js';

/** `owner/name` of a repository as an automation names it (`owner/name`, `owner/name.git`, a github.com URL), or `null`. */
export function githubName(text: string | null): string | null {
  if (!text) return null;
  const name = text
    .trim()
    .replace(/^https:\/\/github\.com\//i, '')
    .replace(/\.git$/, '');
  return GITHUB_REPOSITORY_PATTERN.test(name) ? name : null;
}

export function githubToolScope(
  automation: Pick<AutomationRecord, 'selected_repository' | 'github_repositories'>,
  source: string | null,
  eventKey: string | null,
  payloadJson: string | null,
): GitHubToolScope {
  let thread: GitHubToolScope['thread'] = null;
  if (source === GITHUB_SOURCE && payloadJson !== null) {
    try {
      const found = eventThread(eventKey, JSON.parse(payloadJson));
      if ('thread' in found) thread = { repository: found.thread.repository, number: found.thread.number };
    } catch {
      thread = null;
    }
  }
  return { repositories: githubToolRepositories([thread?.repository ?? null, automation.selected_repository], automation.github_repositories), thread };
}

/**
 * The repositories a run's GitHub tools reach, the first the default: `names` (the event's
 * repository, the automation's `selected_repository`) where they name a GitHub repository, then
 * `allowed` (the automation's `github_repositories`), each once whatever its case.
 */
export function githubToolRepositories(names: readonly (string | null)[], allowed: readonly string[] | undefined): string[] {
  const repositories: string[] = [];
  for (const name of [...names.map(githubName), ...(allowed ?? [])])
    if (name && !repositories.some((known) => known.toLowerCase() === name.toLowerCase())) repositories.push(name);
  return repositories;
}
