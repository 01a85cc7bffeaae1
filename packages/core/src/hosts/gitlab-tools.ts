/**
 * The agent's GitLab tools for one run (the `AgentHostTools` shape, host `gitlab`): comment on
 * an issue or merge request, add labels, open a merge request — with the automation owner's
 * token and host, only in the run's projects (its event's, and the automation's
 * `selected_repository` when that names a GitLab project). Out of scope, bad input and GitLab's
 * refusals are `PlatformError`s whose messages say why (the agent shows them to the model); none
 * holds the token. Everything the agent writes carries the platform's hidden marker, so its own
 * words never command it.
 * @module
 */
import { PlatformError, validationError } from '../kernel/errors.js';
import type { AgentHostTools } from '../ports/agent-runner.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { AgentThreadAction, OpenedPullRequest } from '../github/github-tools.js';
import { marked } from '../github/platform-marker.js';
import { gitlabAnswerThread, isGitLabSource, type GitLabLocator } from './gitlab-thread.js';
import { createGitLabApi, GitLabError, type GitLabApi, type GitLabNoteable } from './gitlab-api.js';

/** A project as GitLab names it: its path, with its groups and subgroups (`group/subgroup/project`). */
export const GITLAB_PROJECT_PATTERN = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+$/;

/** The issue or merge request a run's event is about: the tools' default thread. */
export interface GitLabToolThread {
  repository: string;
  /** Its `iid`. */
  number: number;
  kind: GitLabNoteable['kind'];
}

/** What a run's GitLab tools may reach: projects (the first the default) and the event's thread. */
export interface GitLabToolScope {
  repositories: string[];
  thread: GitLabToolThread | null;
  /** The merge request the run's thread has already (a follow-up's): the agent pushes to it, and a second one is refused. */
  pullRequest?: { repository: string; number: number; url: string | null; branch: string | null } | null;
  /** Told of each merge request the agent opens, so its thread keeps it. */
  onPullRequest?: (opened: OpenedPullRequest) => Promise<void>;
  /** Told of each comment the agent posts and each set of labels it adds. */
  onThreadAction?: (action: AgentThreadAction) => Promise<void>;
}

export interface GitLabToolsOptions {
  /** The GitLab API for a token and host. Default: `@gitbeaker/rest`. */
  apiFor?: (token: string, host: string | null) => GitLabApi;
}

/** The agent's GitLab tools: comments and labels take `kind` too, to name a merge request by its `iid` outside the run's thread. */
export interface AgentGitLabTools extends AgentHostTools {
  readonly thread: GitLabToolThread | null;
  comment(input: { repository?: string; number?: number; kind?: GitLabNoteable['kind']; body: string }): Promise<{ id: number; url: string }>;
  addLabels(input: { repository?: string; number?: number; kind?: GitLabNoteable['kind']; labels: string[] }): Promise<{ labels: string[] }>;
  createPullRequest(input: { repository?: string; title: string; body?: string; head: string; base?: string; draft?: boolean }): Promise<{
    number: number;
    url: string;
  }>;
}

/** GitLab's limit on a note's length (1,000,000 characters) is far above what an agent should write. */
const MAX_BODY = 65_536;
const MAX_LABELS = 100;
/** GitLab's own limit on a label's name. */
const MAX_LABEL = 255;
/** Git's own limits on a branch name are looser; these keep the request sane. */
const BRANCH = /^[A-Za-z0-9._/-]{1,255}$/;

function refused(error: unknown): never {
  if (error instanceof GitLabError) throw new PlatformError(error.status === null ? 'UNAVAILABLE' : 'BAD_REQUEST', error.message, { cause: error });
  throw error;
}

const sigil = (kind: GitLabNoteable['kind']) => (kind === 'issue' ? '#' : '!');

export function createGitLabAgentTools(
  scope: GitLabToolScope,
  credentials: { token: string; host: string | null },
  options: GitLabToolsOptions = {},
): AgentGitLabTools {
  const apiFor = options.apiFor ?? createGitLabApi;
  let api: GitLabApi | null = null;
  const gitlab = () => {
    api ??= apiFor(credentials.token, credentials.host);
    return api;
  };
  const allowed = new Map(scope.repositories.map((name) => [name.toLowerCase(), name]));

  const repositoryFor = (given: string | undefined): string => {
    const name = given ?? scope.repositories[0];
    if (!name) throw validationError(['repository'], 'this run has no GitLab project: name one of the projects the automation allows');
    if (!GITLAB_PROJECT_PATTERN.test(name)) throw validationError(['repository'], `"${name.slice(0, 300)}" is not a GitLab project path (group/project)`);
    const known = allowed.get(name.toLowerCase());
    if (!known) throw validationError(['repository'], `project ${name} is not one this run may act on (allowed: ${scope.repositories.join(', ') || 'none'})`);
    return known;
  };
  /** The issue or merge request meant: the one named (of the thread's kind unless `kind` says), else the run's thread. */
  const threadFor = (input: { repository?: string; number?: number; kind?: GitLabNoteable['kind'] }): { repository: string; on: GitLabNoteable } => {
    const repository = repositoryFor(input.repository ?? (input.number === undefined ? scope.thread?.repository : undefined));
    if (input.kind !== undefined && input.kind !== 'issue' && input.kind !== 'merge_request')
      throw validationError(['kind'], 'kind must be "issue" or "merge_request"');
    const sameProject = scope.thread !== null && scope.thread.repository.toLowerCase() === repository.toLowerCase();
    if (input.number !== undefined) {
      if (!Number.isSafeInteger(input.number) || input.number < 1) throw validationError(['number'], 'number must be a positive integer (an iid)');
      return { repository, on: { kind: input.kind ?? (sameProject && scope.thread ? scope.thread.kind : 'issue'), iid: input.number } };
    }
    if (sameProject && scope.thread && (input.kind === undefined || input.kind === scope.thread.kind))
      return { repository, on: { kind: scope.thread.kind, iid: scope.thread.number } };
    throw validationError(['number'], `name the issue or merge request: this run's event is about none in ${repository}`);
  };
  const text = (value: unknown, what: string, max: number): string => {
    if (typeof value !== 'string' || value.trim() === '') throw validationError([what], `${what} must not be empty`);
    if (value.length > max) throw validationError([what], `${what} is longer than ${max} characters`);
    return value;
  };
  const tell = async (action: AgentThreadAction) => scope.onThreadAction?.(action);

  return {
    host: 'gitlab',
    repositories: [...scope.repositories],
    thread: scope.thread,
    async comment(input) {
      const { repository, on } = threadFor(input);
      const body = text(input.body, 'body', MAX_BODY);
      const posted = await gitlab().createNote(repository, on, marked(body)).catch(refused);
      await tell({ type: 'comment', repository, number: on.iid, url: posted.url });
      return posted;
    },
    async addLabels(input) {
      const { repository, on } = threadFor(input);
      const labels = input.labels;
      if (!Array.isArray(labels) || labels.length === 0 || labels.length > MAX_LABELS)
        throw validationError(['labels'], `labels must hold 1 to ${MAX_LABELS} names`);
      for (const label of labels) {
        text(label, 'labels', MAX_LABEL);
        // GitLab takes the labels to add as one comma-separated list.
        if (label.includes(',')) throw validationError(['labels'], `a GitLab label's name cannot hold a comma: "${label.slice(0, 100)}"`);
      }
      const now = await gitlab().addLabels(repository, on, labels).catch(refused);
      await tell({ type: 'labels', repository, number: on.iid, labels });
      return { labels: now };
    },
    async createPullRequest(input) {
      const repository = repositoryFor(input.repository);
      const title = text(input.title, 'title', 255);
      if (typeof input.head !== 'string' || !BRANCH.test(input.head))
        throw validationError(['head'], `head must be a branch name, got "${String(input.head).slice(0, 300)}"`);
      if (input.base !== undefined && !BRANCH.test(input.base))
        throw validationError(['base'], `base must be a branch name, got "${input.base.slice(0, 300)}"`);
      if (input.body !== undefined) text(input.body, 'body', MAX_BODY);
      const existing = scope.pullRequest;
      if (existing && existing.repository.toLowerCase() === repository.toLowerCase()) {
        const branch = existing.branch ? `: push your commits to its branch ${existing.branch} to update it` : ': push to its branch to update it';
        throw new PlatformError('CONFLICT', `this thread's merge request !${existing.number} is open already${branch}; a second merge request is not opened`);
      }
      const opened = await gitlab()
        .createMergeRequest(repository, {
          title,
          sourceBranch: input.head,
          // Marked: its text (which may quote a mention) never commands the agent.
          description: marked(input.body ?? ''),
          ...(input.base === undefined ? {} : { targetBranch: input.base }),
          ...(input.draft === undefined ? {} : { draft: input.draft }),
        })
        .catch(refused);
      await scope.onPullRequest?.({ repository, number: opened.iid, url: opened.url, head: input.head });
      return { number: opened.iid, url: opened.url };
    },
  };
}

/** `group/project` of a project as an automation names it (a path, `….git`, an https URL), or `null`. */
export function projectPath(name: string | null): string | null {
  if (!name) return null;
  const path = name
    .trim()
    .replace(/^https?:\/\/[^/]+\//i, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  return GITLAB_PROJECT_PATTERN.test(path) ? path : null;
}

/**
 * Which projects a run's GitLab tools reach: the project of the GitLab event that started it (and
 * its issue or merge request, the default thread), then the automation's `selected_repository`
 * when it names a project. Nothing else.
 */
export function gitlabToolScope(
  automation: Pick<AutomationRecord, 'selected_repository'>,
  source: string | null,
  eventKey: string | null,
  payloadJson: string | null,
): GitLabToolScope {
  let thread: GitLabToolThread | null = null;
  if (source !== null && isGitLabSource(source) && payloadJson !== null) {
    try {
      const found = gitlabAnswerThread(eventKey, JSON.parse(payloadJson));
      if ('thread' in found) {
        const locator = found.thread.locator as unknown as GitLabLocator;
        thread = { repository: locator.project, number: locator.iid, kind: locator.kind };
      }
    } catch {
      thread = null;
    }
  }
  const repositories: string[] = [];
  for (const name of [thread?.repository ?? null, projectPath(automation.selected_repository)])
    if (name && !repositories.some((known) => known.toLowerCase() === name.toLowerCase())) repositories.push(name);
  return { repositories, thread };
}

/** How a thread of the tools is named in their descriptions: `group/project#3`, `group/project!7`. */
export const gitlabThreadLabel = (thread: GitLabToolThread): string => `${thread.repository}${sigil(thread.kind)}${thread.number}`;
