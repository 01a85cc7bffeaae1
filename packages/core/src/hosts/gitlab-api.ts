/**
 * The few GitLab REST calls the platform makes for a user — award 👀, write and edit notes on
 * issues and merge requests (replies in a discussion), find its own note again, add labels, open
 * a merge request, read a member's access level — as one small interface, and its implementation
 * over `@gitbeaker/rest` (GitLab's maintained TypeScript client; ES module and CommonJS builds,
 * Node 18.20 and later) with the user's token, on gitlab.com or a self-managed GitLab named by
 * its host or base URL. gitbeaker is loaded on first use: a platform that never answers on GitLab
 * never loads it. Errors come out as {@link GitLabError}: the status and GitLab's message, never
 * the token.
 * @module
 */
import { PlatformError } from '../kernel/errors.js';
import { HostError, scrubCredential } from '../ports/answer-host.js';

/** An issue (`#iid`) or merge request (`!iid`) of a project. */
export interface GitLabNoteable {
  kind: 'issue' | 'merge_request';
  iid: number;
}

/** A note (comment) the platform wrote. */
export interface GitLabNote {
  id: number;
  /** Where people see it: the issue's or merge request's page, at the note. */
  url: string;
}

/** GitLab's access levels (`access_level`): Developer and up may push, so they are the project's writers. */
export const GITLAB_ACCESS_LEVELS = { none: 0, minimalAccess: 5, guest: 10, planner: 15, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export interface GitLabApi {
  /** `userId`'s access level on the project, inherited ones (its groups') included; `0` for someone who is no member. */
  accessLevelOf(project: string, userId: number): Promise<number>;
  /** Awards `name` on the issue or merge request, or on its note `noteId`; awarded already counts as done. */
  awardEmoji(project: string, on: GitLabNoteable, noteId: number | null, name: string): Promise<void>;
  /** A new note on the issue or merge request; with `discussionId`, a reply in that discussion. */
  createNote(project: string, on: GitLabNoteable, body: string, discussionId?: string | null): Promise<GitLabNote>;
  /** Replaces a note's body; `null` when the note is gone (someone deleted it). */
  editNote(project: string, on: GitLabNoteable, noteId: number, body: string): Promise<GitLabNote | null>;
  /** The newest note on the issue or merge request updated since `since` (ISO time) whose body holds `marker`; `null` when none. */
  findNote(project: string, on: GitLabNoteable, marker: string, since: string): Promise<GitLabNote | null>;
  /** Adds labels (creating those the project lacks, as GitLab does); answers the issue's or merge request's labels now. */
  addLabels(project: string, on: GitLabNoteable, labels: string[]): Promise<string[]>;
  /** Opens a merge request from `sourceBranch` into `targetBranch` (default: the project's default branch). */
  createMergeRequest(
    project: string,
    input: { title: string; description?: string; sourceBranch: string; targetBranch?: string; draft?: boolean },
  ): Promise<{ iid: number; url: string }>;
}

/** A GitLab call that failed: its HTTP status (`null`: GitLab was not reached) and why, in words a user acts on. */
export class GitLabError extends HostError {
  override name = 'GitLabError';
  constructor(status: number | null, message: string) {
    super('gitlab', status, message);
  }
}

/** Each call's time limit: a slow GitLab must not hold a run's report (or an agent's step) for long. */
const CALL_TIMEOUT_MS = 15_000;
/** Asked while a webhook waits for its answer (GitLab gives up after 10 s by default): a slow answer refuses the command. */
const ACCESS_TIMEOUT_MS = 5_000;
/** Notes read at most (pages of 100) while looking for a run's earlier note. */
const FIND_PAGES = 5;

const PUBLIC_HOST = 'https://gitlab.com';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * GitLab's web root for a stored token's `host`: `https://gitlab.com` for none (or `gitlab.com`),
 * `https://HOST` for a self-managed host name, or the base URL given (`https://example.com/gitlab`
 * for GitLab under a relative URL root; a trailing `/api/v4` is taken off). Plain `http` only for
 * a loopback host (a test stand-in), as for cloning.
 */
export function gitlabWebRoot(host: string | null): string {
  const text = host?.trim() ?? '';
  if (text === '' || /^(https?:\/\/)?gitlab\.com\/?$/i.test(text)) return PUBLIC_HOST;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new PlatformError('BAD_REQUEST', `the GitLab host "${text.slice(0, 200)}" is not a host name or URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    throw new PlatformError('BAD_REQUEST', `the GitLab host ${url.origin} uses ${url.protocol.slice(0, -1)}, allowed only for a loopback host; use https`);
  if (url.username || url.password) throw new PlatformError('BAD_REQUEST', 'the GitLab host must not contain credentials');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v4$/, '');
  return `${url.origin}${path}`;
}

/** Where GitLab's REST API is for a stored token's `host`: `https://gitlab.com/api/v4`, `https://HOST/api/v4`. */
export const gitlabApiBaseUrl = (host: string | null): string => `${gitlabWebRoot(host)}/api/v4`;

/** The web page of an issue or merge request of `project` (its path). */
export function noteableUrl(webRoot: string, project: string, on: GitLabNoteable): string {
  return `${webRoot}/${project}/-/${on.kind === 'issue' ? 'issues' : 'merge_requests'}/${on.iid}`;
}

/** GitLab's words for a failed request, with what it usually means, and never the token. */
function describe(error: unknown, token: string, timeoutMs: number): GitLabError {
  const name = (error as { name?: unknown })?.name;
  const cause = (error as { cause?: { description?: unknown; response?: { status?: unknown } } })?.cause;
  let status = typeof cause?.response?.status === 'number' ? cause.response.status : null;
  let text: string;
  if (name === 'GitbeakerTimeoutError' || name === 'TimeoutError' || name === 'AbortError') {
    text = `GitLab did not answer within ${timeoutMs / 1000} s`;
  } else if (name === 'GitbeakerRetryError') {
    // Asked again on 429 and 502 until its time ran out: the last status is in its words.
    const last = /last status code: (\d{3})/.exec(String((error as Error).message));
    status = last?.[1] ? Number(last[1]) : 503;
    text = `GitLab answered ${status} on every try: ${status === 429 ? 'rate limited' : 'unavailable'}`;
  } else if (status !== null) {
    const said = typeof cause?.description === 'string' && cause.description.trim() !== '' ? cause.description.trim() : String((error as Error).message);
    const hint =
      status === 401
        ? ' (the stored GitLab token was refused: expired or revoked?)'
        : status === 403 || status === 404
          ? " (the token's user may lack access to this project, or the token the api scope)"
          : '';
    text = `GitLab answered ${status}: ${said.slice(0, 500)}${hint}`;
  } else {
    // fetch's own words ("fetch failed") say little: its cause says why (ECONNREFUSED, ENOTFOUND, a certificate).
    const why = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
    const reason =
      typeof why?.code === 'string'
        ? why.code
        : typeof why?.message === 'string' && why.message !== ''
          ? why.message
          : error instanceof Error
            ? error.message
            : String(error);
    text = `GitLab could not be reached: ${reason}`;
  }
  return new GitLabError(status, scrubCredential(text, token));
}

type Gitbeaker = typeof import('@gitbeaker/rest');
/** The module's name in a variable: bundlers keep it a runtime import, loaded only when GitLab is first called. */
const GITBEAKER = '@gitbeaker/rest';
let loading: Promise<Gitbeaker> | null = null;
const loadGitbeaker = (): Promise<Gitbeaker> => {
  loading ??= (import(GITBEAKER) as Promise<Gitbeaker>).catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
};

/** The note answered by GitLab as the platform keeps it. */
const noteOf = (webRoot: string, project: string, on: GitLabNoteable, note: { id: number }): GitLabNote => ({
  id: note.id,
  url: `${noteableUrl(webRoot, project, on)}#note_${note.id}`,
});

/** The GitLab API for one token, on its host (`null`: gitlab.com). */
export function createGitLabApi(token: string, host: string | null): GitLabApi {
  const webRoot = gitlabWebRoot(host);
  // gitbeaker's client-side rate limiter is off: the platform makes few calls, GitLab limits them itself.
  const options = (timeoutMs: number) => ({ host: webRoot, token, queryTimeout: timeoutMs, rateLimits: {} });
  const call = async <T>(work: (gitbeaker: Gitbeaker, timeoutMs: number) => Promise<T>, timeoutMs = CALL_TIMEOUT_MS): Promise<T> => {
    const gitbeaker = await loadGitbeaker();
    try {
      return await work(gitbeaker, timeoutMs);
    } catch (error) {
      throw error instanceof GitLabError ? error : describe(error, token, timeoutMs);
    }
  };
  const notes = (g: Gitbeaker, on: GitLabNoteable, timeoutMs: number) =>
    on.kind === 'issue' ? new g.IssueNotes(options(timeoutMs)) : new g.MergeRequestNotes(options(timeoutMs));

  return {
    accessLevelOf: (project, userId) =>
      call(async (g, timeoutMs) => {
        try {
          const member = await new g.ProjectMembers(options(timeoutMs)).show(project, userId, { includeInherited: true });
          return typeof member.access_level === 'number' ? member.access_level : 0;
        } catch (error) {
          // GitLab answers 404 for someone who is no member (directly or through a group).
          if (statusOf(error) === 404) return 0;
          throw error;
        }
      }, ACCESS_TIMEOUT_MS),
    awardEmoji: (project, on, noteId, name) =>
      call(async (g, timeoutMs) => {
        try {
          if (noteId !== null) {
            const awards = on.kind === 'issue' ? new g.IssueNoteAwardEmojis(options(timeoutMs)) : new g.MergeRequestNoteAwardEmojis(options(timeoutMs));
            await awards.award(project, on.iid, noteId, name);
          } else {
            const awards = on.kind === 'issue' ? new g.IssueAwardEmojis(options(timeoutMs)) : new g.MergeRequestAwardEmojis(options(timeoutMs));
            await awards.award(project, on.iid, name);
          }
        } catch (error) {
          // GitLab refuses a second award of the same emoji by the same user (a 404, "Award Emoji Name has already been taken"): it is there.
          if (!/has already been taken/i.test(descriptionOf(error))) throw error;
        }
      }),
    createNote: (project, on, body, discussionId) =>
      call(async (g, timeoutMs) => {
        if (discussionId) {
          const discussions = on.kind === 'issue' ? new g.IssueDiscussions(options(timeoutMs)) : new g.MergeRequestDiscussions(options(timeoutMs));
          const note = (await discussions.addNote(project, on.iid, discussionId, body)) as unknown as { id: number };
          return noteOf(webRoot, project, on, note);
        }
        const note = await notes(g, on, timeoutMs).create(project, on.iid, body);
        return noteOf(webRoot, project, on, note);
      }),
    editNote: (project, on, noteId, body) =>
      call(async (g, timeoutMs) => {
        try {
          const note = await notes(g, on, timeoutMs).edit(project, on.iid, noteId, { body });
          return noteOf(webRoot, project, on, note);
        } catch (error) {
          if (statusOf(error) === 404) return null;
          throw error;
        }
      }),
    findNote: (project, on, marker, since) =>
      call(async (g, timeoutMs) => {
        const from = Date.parse(since);
        const all = await notes(g, on, timeoutMs).all(project, on.iid, { orderBy: 'updated_at', sort: 'desc', perPage: 100, maxPages: FIND_PAGES });
        // Newest first: the first match is the newest.
        const found = all.find((note) => typeof note.body === 'string' && note.body.includes(marker) && !(Date.parse(String(note.updated_at)) < from));
        return found ? noteOf(webRoot, project, on, found) : null;
      }),
    addLabels: (project, on, labels) =>
      call(async (g, timeoutMs) => {
        const request = { addLabels: labels.join(',') };
        const updated =
          on.kind === 'issue'
            ? await new g.Issues(options(timeoutMs)).edit(project, on.iid, request)
            : await new g.MergeRequests(options(timeoutMs)).edit(project, on.iid, request);
        return labelNames((updated as { labels?: unknown }).labels);
      }),
    createMergeRequest: (project, input) =>
      call(async (g, timeoutMs) => {
        const target = input.targetBranch ?? String((await new g.Projects(options(timeoutMs)).show(project)).default_branch ?? '');
        if (target === '') throw new GitLabError(409, `GitLab project ${project} has no default branch (an empty repository?): name the target branch`);
        // GitLab marks a merge request as a draft by its title.
        const title = input.draft && !/^(draft:|\[draft\]|\(draft\))/i.test(input.title) ? `Draft: ${input.title}` : input.title;
        const opened = await new g.MergeRequests(options(timeoutMs)).create(project, input.sourceBranch, target, title, {
          ...(input.description === undefined ? {} : { description: input.description }),
        });
        return { iid: opened.iid, url: String(opened.web_url) };
      }),
  };
}

/** The HTTP status of a gitbeaker request error, or `null`. */
function statusOf(error: unknown): number | null {
  const status = (error as { cause?: { response?: { status?: unknown } } })?.cause?.response?.status;
  return typeof status === 'number' ? status : null;
}

/** GitLab's message in a gitbeaker request error. */
function descriptionOf(error: unknown): string {
  const description = (error as { cause?: { description?: unknown } })?.cause?.description;
  return typeof description === 'string' ? description : '';
}

/** Label names, whether GitLab answered names or (with `with_labels_details`) label objects. */
function labelNames(labels: unknown): string[] {
  if (!Array.isArray(labels)) return [];
  return labels.map((label) => (typeof label === 'string' ? label : String((label as { name?: unknown })?.name ?? ''))).filter(Boolean);
}
