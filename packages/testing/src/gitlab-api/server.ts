/**
 * A GitLab REST API stand-in for tests on 127.0.0.1, served under `/api/v4` as every GitLab
 * (gitlab.com or self-managed) serves it, so a client is configured with the stand-in's origin
 * as its GitLab host. Every request is checked against GitLab's description of the operation
 * (see `openapi.ts`): route, path and query parameters, JSON body; whatever does not conform
 * lands in `violations`, which a test asserts is empty. Tokens are read as GitLab reads them
 * (`PRIVATE-TOKEN`, or `Authorization: Bearer`). Requests outside `/api/v4` go to a git server
 * (proxied), so clone URLs share the API's origin, as on GitLab.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GitServer } from '../git-server/index.js';
import { proxyToGitServer } from '../git-server/proxy.js';
import { readBody as readRequestBody } from '../http-support/read-body.js';
import { keepMergeRequestRef } from './merge-request-refs.js';
import { coerceParameter, gitlabDescription, readBody } from './openapi.js';
import { gitlabError, type Origins } from './resources.js';
import { type Handler, handlers, type Reply } from './routes.js';
import { type AwardRecord, createState, type GitLabState, type MergeRequestRecord, type NoteableKind, type NoteRecord, type UserRecord } from './state.js';

const API_ROOT = '/api/v4';

export interface GitLabApiToken {
  /** The user the token acts as. Default `root`. */
  username?: string;
  /** A project or group access token's bot user. Default: as its username says (`project_12_bot…`). */
  bot?: boolean;
  /** Projects (paths) this token may read but not write: writes answer 403. */
  readOnly?: string[];
}

export interface GitLabApiOptions {
  /** Accepted tokens → who they act as (a username, or the details). Absent: no token is checked and requests act as `root`. */
  tokens?: Record<string, string | GitLabApiToken>;
  /** A git server to proxy every request outside `/api/v4` to. */
  git?: GitServer;
}

export type ViolationKind = 'route' | 'unimplemented' | 'parameter' | 'query' | 'body' | 'response';

/** Something that does not match GitLab's description of the operation: a test asserts there are none. */
export interface Violation {
  kind: ViolationKind;
  method: string;
  /** Path and query relative to `/api/v4`. */
  path: string;
  operationId: string | null;
  problems: string[];
}

export interface RecordedGitLabRequest {
  method: string;
  /** Path and query relative to `/api/v4`. */
  path: string;
  operationId: string | null;
  status: number;
  /** The parsed JSON body (`undefined` when there was none). */
  body: unknown;
  /** How the token was sent — never the token itself. */
  auth: 'private-token' | 'bearer' | null;
}

export interface GitLabApi {
  /** The origin, `http://127.0.0.1:<port>`: what a provider token's `host` names (the GitLab host). */
  url: string;
  /** The REST API root, `http://127.0.0.1:<port>/api/v4`. */
  apiUrl: string;
  requests: RecordedGitLabRequest[];
  violations: Violation[];
  state: GitLabState;
  /** Adds a project (`group/project`, subgroups allowed); its ID. */
  addProject(path: string, setup?: { defaultBranch?: string | null; visibility?: 'private' | 'internal' | 'public' }): number;
  /** A known user (made on first mention); its ID, as webhooks carry it. */
  addUser(username: string, setup?: { bot?: boolean }): number;
  /** Makes `username` a member of the project with `accessLevel` (10 Guest, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner). */
  addMember(project: string, username: string, accessLevel: number): void;
  /** Adds an issue; its iid. */
  addIssue(project: string, setup?: { iid?: number; title?: string; description?: string; author?: string; labels?: string[] }): number;
  /** Adds a merge request from `sourceBranch`; its iid. With a git server, `refs/merge-requests/<iid>/head` points at the branch's head, as on GitLab. */
  addMergeRequest(
    project: string,
    setup: { iid?: number; title?: string; description?: string; author?: string; sourceBranch: string; targetBranch?: string },
  ): number;
  /**
   * Adds a note by `author` (default `root`) on an issue (`#iid`) or merge request (`!iid`); with
   * `discussionId` a reply in that discussion, with `type: 'DiffNote'` a comment on a diff line (a
   * discussion of its own). Its ID and discussion's ID, as a webhook carries them.
   */
  addNote(
    project: string,
    on: { issue: number } | { mergeRequest: number },
    setup: { body: string; author?: string; type?: 'DiffNote' | 'DiscussionNote'; discussionId?: string },
  ): { id: number; discussionId: string };
  /** Makes `token` read-only on the project from now on (writes answer 403). */
  refuseWrites(token: string, project: string): void;
  /** The notes on an issue or merge request, oldest first. */
  notes(project: string, on: { issue: number } | { mergeRequest: number }): NoteRecord[];
  /** Award emoji on an issue or merge request (`note` omitted) or on one of its notes. */
  awards(project: string, on: { issue: number } | { mergeRequest: number }, note?: number): AwardRecord[];
  labels(project: string, on: { issue: number } | { mergeRequest: number }): string[];
  mergeRequests(project: string): MergeRequestRecord[];
  close(): Promise<void>;
}

interface TokenEntry {
  user: UserRecord;
  readOnly: Set<string>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function credentials(req: IncomingMessage): { scheme: 'private-token' | 'bearer'; value: string } | null {
  const token = req.headers['private-token'];
  if (typeof token === 'string' && token.trim() !== '') return { scheme: 'private-token', value: token.trim() };
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return bearer?.[1] ? { scheme: 'bearer', value: bearer[1] } : null;
}

const kindOf = (on: { issue: number } | { mergeRequest: number }): { kind: NoteableKind; iid: number } =>
  'issue' in on ? { kind: 'issue', iid: on.issue } : { kind: 'merge_request', iid: on.mergeRequest };

/**
 * Starts the stand-in.
 *
 * @example
 * ```ts
 * const gitlab = await startGitLabApi({ tokens: { 'glpat-test': 'agent-bot' } });
 * gitlab.addProject('acme/app');
 * const issue = gitlab.addIssue('acme/app', { title: 'Bug' });
 * const notes = new IssueNotes({ host: gitlab.url, token: 'glpat-test' });
 * await notes.create('acme/app', issue, 'On it');
 * expect(gitlab.notes('acme/app', { issue }).map((note) => note.body)).toEqual(['On it']);
 * expect(gitlab.violations).toEqual([]);
 * ```
 */
export async function startGitLabApi(options: GitLabApiOptions = {}): Promise<GitLabApi> {
  const description = gitlabDescription();
  const state = createState();
  const tokens = new Map<string, TokenEntry>();
  for (const [value, setup] of Object.entries(options.tokens ?? {})) {
    const details = typeof setup === 'string' ? { username: setup } : setup;
    const user = state.user(details.username ?? 'root', details.bot === undefined ? {} : { bot: details.bot });
    tokens.set(value, { user, readOnly: new Set((details.readOnly ?? []).map((name) => name.toLowerCase())) });
  }
  const requests: RecordedGitLabRequest[] = [];
  const violations: Violation[] = [];
  const origins: Origins = { web: '' };
  let apiUrl = '';

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === API_ROOT || path.startsWith(`${API_ROOT}/`) || path.startsWith(`${API_ROOT}?`)) {
      const relative = path.slice(API_ROOT.length) || '/';
      handleApi(req, res, relative).catch((error: Error) => {
        violations.push({
          kind: 'response',
          method: req.method ?? 'GET',
          path: relative,
          operationId: null,
          problems: [`stand-in failed: ${error.stack ?? error.message}`],
        });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(gitlabError('500 Internal Server Error')));
      });
    } else if (options.git) proxyToGitServer(options.git, req, res);
    else {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found\n');
    }
  });

  async function handleApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    // Matched on the path as sent: a project's URL-encoded path (`acme%2Fapp`) is one segment.
    const rawPath = path.split('?')[0] ?? '/';
    const url = new URL(path, 'http://api.invalid');
    const raw = await readRequestBody(req);
    const sent = credentials(req);
    const route = description.match(method, `${API_ROOT}${rawPath}`);
    const operation = route?.operation ?? null;
    let body: unknown;
    const violate = (kind: ViolationKind, problems: string[]) => violations.push({ kind, method, path, operationId: operation?.operationId ?? null, problems });
    const answer = (reply: Reply) => {
      if (operation && reply.status < 400 && !operation.statuses.includes(String(reply.status)))
        violate('response', [`status ${reply.status} is not documented for ${operation.operationId}`]);
      requests.push({ method, path, operationId: operation?.operationId ?? null, status: reply.status, body, auth: sent?.scheme ?? null });
      const headers = { 'x-request-id': `STANDIN${requests.length}`, ...reply.headers };
      if (reply.body === undefined) {
        res.writeHead(reply.status, headers);
        res.end();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(reply.body));
    };

    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
      } catch (error) {
        violate('body', [`not JSON: ${(error as Error).message}`]);
        return answer({ status: 400, body: { error: "The provided content-type 'application/json' does not match the content" } });
      }
    }
    let token: TokenEntry | undefined;
    if (options.tokens) {
      token = sent ? tokens.get(sent.value) : undefined;
      if (!token) return answer({ status: 401, body: gitlabError('401 Unauthorized') });
    }
    const user = token?.user ?? state.user('root');
    if (!route || !operation) {
      violate('route', [`${method} ${API_ROOT}${url.pathname} is no operation GitLab describes (or the stand-in knows)`]);
      return answer({ status: 404, body: { error: '404 Not Found' } });
    }

    const params: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const parameter of operation.parameters) {
      const text = parameter.in === 'path' ? (route.params[parameter.name] ?? '') : url.searchParams.get(parameter.name);
      if (text === null) {
        if (parameter.required) problems.push(`query ${parameter.name} is required`);
        continue;
      }
      const value = coerceParameter(text, parameter.type);
      (parameter.in === 'path' ? params : query)[parameter.name] = value;
      for (const problem of description.check(parameter.schema, value)) problems.push(`${parameter.in} ${parameter.name} ${problem.replace(/^\(root\) /, '')}`);
    }
    for (const name of url.searchParams.keys())
      if (!operation.parameters.some((p) => p.in === 'query' && p.name === name)) problems.push(`query ${name} is not a parameter of ${operation.operationId}`);
    if (problems.length > 0) {
      violate(problems.some((problem) => problem.startsWith('path')) ? 'parameter' : 'query', problems);
      return answer({ status: 400, body: { error: problems.join(', ') } });
    }

    const project = state.project(String(params.id ?? ''));
    if (project && token && WRITES.has(method) && token.readOnly.has(project.path.toLowerCase()))
      return answer({ status: 403, body: gitlabError('403 Forbidden') });

    const read = readBody(operation, body);
    const bodyProblems: string[] = read.unknown.map((name) => `body ${name} is not a parameter of ${operation.operationId}`);
    if (operation.body) {
      if (read.body === undefined) {
        if (operation.body.required) bodyProblems.push('a JSON body is required');
      } else bodyProblems.push(...description.check(operation.body.schema, read.body).map((problem) => `body ${problem}`));
    } else if (body !== undefined) bodyProblems.push(`${operation.operationId} takes no JSON body`);
    if (bodyProblems.length > 0) {
      violate('body', bodyProblems);
      return answer({ status: 400, body: { error: bodyProblems.join(', ') } });
    }

    const handler: Handler | undefined = handlers[operation.operationId];
    if (!handler) {
      violate('unimplemented', [`the stand-in does not simulate ${operation.operationId} (${operation.method} ${operation.template})`]);
      return answer({ status: 404, body: { error: '404 Not Found' } });
    }
    answer(await handler({ params, query, body: (read.body ?? {}) as Record<string, unknown>, user, origins, apiUrl, path, state, git: options.git }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origins.web = `http://127.0.0.1:${port}`;
  apiUrl = `${origins.web}${API_ROOT}`;

  const projectOrThrow = (path: string) => {
    const project = state.project(path);
    if (!project) throw new Error(`no project ${path}: addProject() it first`);
    return project;
  };
  const recordOf = (path: string, on: { issue: number } | { mergeRequest: number }) => {
    const project = projectOrThrow(path);
    const { kind, iid } = kindOf(on);
    const record = kind === 'issue' ? project.issues.get(iid) : project.mergeRequests.get(iid);
    if (!record) throw new Error(`no ${kind === 'issue' ? 'issue' : 'merge request'} ${path}${kind === 'issue' ? '#' : '!'}${iid}`);
    return { project, kind, record };
  };

  return {
    url: origins.web,
    apiUrl,
    requests,
    violations,
    state,
    addProject: (path, setup) => state.addProject(path, setup).id,
    addUser: (username, setup) => state.user(username, setup).id,
    addMember(path, username, accessLevel) {
      projectOrThrow(path).members.set(state.user(username).id, accessLevel);
    },
    addIssue: (path, setup = {}) => state.addIssue(projectOrThrow(path), setup).iid,
    addMergeRequest(path, setup) {
      const request = state.addMergeRequest(projectOrThrow(path), setup);
      if (options.git) keepMergeRequestRef(options.git, path, request.iid, `refs/heads/${request.sourceBranch}`);
      return request.iid;
    },
    addNote(path, on, setup) {
      const { project, kind, record } = recordOf(path, on);
      const note = state.addNote(
        project,
        { kind, iid: record.iid },
        {
          body: setup.body,
          author: state.user(setup.author ?? 'root'),
          ...(setup.type ? { type: setup.type } : setup.discussionId ? { type: 'DiscussionNote' as const } : {}),
          ...(setup.discussionId ? { discussionId: setup.discussionId } : {}),
        },
      );
      return { id: note.id, discussionId: note.discussionId };
    },
    refuseWrites(value, path) {
      const entry = tokens.get(value);
      if (!entry) throw new Error('refuseWrites: not one of the configured tokens');
      entry.readOnly.add(path.toLowerCase());
    },
    notes(path, on) {
      const { project, kind, record } = recordOf(path, on);
      return state.notesOf(project, { kind, iid: record.iid });
    },
    awards(path, on, note) {
      const { project, kind, record } = recordOf(path, on);
      return state.awards.filter((a) => a.on.projectId === project.id && a.on.kind === kind && a.on.iid === record.iid && a.on.noteId === (note ?? null));
    },
    labels: (path, on) => [...recordOf(path, on).record.labels],
    mergeRequests: (path) => [...projectOrThrow(path).mergeRequests.values()].sort((a, b) => a.iid - b.iid),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
