/**
 * A GitHub REST API stand-in for tests on 127.0.0.1, served under `/api/v3` as GitHub Enterprise
 * Server serves it (so clients are configured the way they would be for a GHES host). Every request
 * is checked against GitHub's OpenAPI description — route, path and query parameters, JSON body —
 * and every answer against the response schema for its status before it is sent; whatever does not
 * conform lands in `violations`, which a test asserts is empty. Requests outside `/api/v3` go to a
 * git server (proxied) or a fallback handler, so one origin can serve both, like GitHub does.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GitServer } from '../git-server/index.js';
import { proxyToGitServer } from '../git-server/proxy.js';
import { coerceParameter, type OpenApiDescription, type Operation, openApiDescription } from './openapi.js';
import { COLLABORATOR_ROLES, type CollaboratorRole } from './collaborators.js';
import {
  basicError,
  DOCS,
  type IssueCommentRecord,
  type Origins,
  type ReactionRecord,
  type ReviewCommentRecord,
  timestamp,
  type UserRecord,
  validationFailed,
} from './resources.js';
import { type Handler, handlers, type Reply } from './routes.js';
import { createState, type GitHubState, type PullRequestSetup, type ReviewCommentSetup } from './state.js';
import { readBody } from '../http-support/read-body.js';

const API_ROOT = '/api/v3';

/** Whether a server in this process has loaded the description (later ones report 0 ms for it). */
let loadedOnce = false;

export interface GitHubApiToken {
  /** The user the token acts as. Default `octocat`. */
  login?: string;
  /** `Bot` for a GitHub App installation (login `name[bot]`). Default `User`. */
  type?: 'User' | 'Bot';
  /** Repositories (`owner/name`) this token may read but not write: writes answer 403. */
  readOnly?: string[];
}

export interface GitHubApiOptions {
  /**
   * Accepted tokens (sent as `Authorization: token …` or `Bearer …`) → who they act as (a login,
   * or the details). Absent: no credentials are checked and requests act as `octocat`.
   */
  tokens?: Record<string, string | GitHubApiToken>;
  /** A git server to proxy every request outside `/api/v3` to, so clone URLs share the API's origin. */
  git?: GitServer;
  /** Answers requests outside `/api/v3` when there is no `git` server. Default: 404. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
}

export type ViolationKind = 'route' | 'unimplemented' | 'parameter' | 'query' | 'body' | 'response';

/** Something that does not match GitHub's OpenAPI description — a test asserts there are none. */
export interface Violation {
  kind: ViolationKind;
  method: string;
  /** Path and query relative to `/api/v3`. */
  path: string;
  operationId: string | null;
  problems: string[];
}

export interface RecordedGitHubRequest {
  method: string;
  /** Path and query relative to `/api/v3`. */
  path: string;
  operationId: string | null;
  status: number;
  /** The parsed JSON body (`undefined` when there was none). */
  body: unknown;
  /** How the token was sent — never the token itself. */
  auth: 'token' | 'bearer' | null;
}

export interface GitHubApi {
  /** The origin, `http://127.0.0.1:<port>` (git requests, `html_url`s). */
  url: string;
  /** The REST API root, `http://127.0.0.1:<port>/api/v3` — octokit's `baseUrl`. */
  apiUrl: string;
  /** Every API request answered, in order. */
  requests: RecordedGitHubRequest[];
  /** Requests and answers that did not match GitHub's description. */
  violations: Violation[];
  /** The in-memory data, for assertions beyond the helpers below. */
  state: GitHubState;
  /** Milliseconds the description took to load (0 when an earlier server in this process loaded it). */
  descriptionLoadMs: number;
  addRepository(fullName: string, setup?: { private?: boolean; defaultBranch?: string }): void;
  /** Adds an issue (or, with `pullRequest`, the issue side of a pull request); its number. */
  addIssue(fullName: string, setup?: { number?: number; title?: string; body?: string; pullRequest?: boolean; user?: string; labels?: string[] }): number;
  /** Adds a comment on an issue by `user` (default `octocat`); its id. */
  addIssueComment(fullName: string, issueNumber: number, setup: { body: string; user?: string }): number;
  /** Makes `login` a known user (the collaborator endpoints answer 404 for unknown ones). A `…[bot]` login is a `Bot`. */
  addUser(login: string, setup?: { type?: 'User' | 'Bot' }): void;
  /**
   * Gives `login` a role on the repository (the owner is admin without one). It decides what
   * `GET …/collaborators/{username}/permission` answers, the `author_association` of their
   * comments and pull requests and, for a token's own user, the repository's `permissions`.
   */
  addCollaborator(fullName: string, login: string, role: CollaboratorRole): void;
  /** Adds a pull request from branch `head` of the same repository (and its issue side), adding the repository if need be; its number. */
  addPullRequest(fullName: string, setup: PullRequestSetup): number;
  /**
   * Adds a review comment on pull request `pullNumber` (which must exist) — on `line` (default 1;
   * `null`: the whole file) of `path` (default `README.md`), or with `inReplyTo` a reply in that
   * comment's thread; its id.
   */
  addReviewComment(fullName: string, pullNumber: number, setup: ReviewCommentSetup): number;
  /** Makes `token` read-only on the repository from now on (writes answer 403). */
  refuseWrites(token: string, fullName: string): void;
  comments(fullName: string, issueNumber: number): IssueCommentRecord[];
  /** The review comments on a pull request, oldest first. */
  reviewComments(fullName: string, pullNumber: number): ReviewCommentRecord[];
  /** Reactions on an issue (`{ issue }`), an issue comment (`{ comment }`) or a review comment. */
  reactions(fullName: string, on: { issue: number } | { comment: number } | { reviewComment: number }): ReactionRecord[];
  labels(fullName: string, issueNumber: number): string[];
  pulls(fullName: string): { number: number; title: string; body: string | null; head: string; base: string; draft: boolean; user: string }[];
  close(): Promise<void>;
}

interface TokenEntry {
  user: UserRecord;
  readOnly: Set<string>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function credentials(req: IncomingMessage): { scheme: 'token' | 'bearer'; value: string } | null {
  const found = /^(token|bearer)\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return found?.[1] && found[2] ? { scheme: found[1].toLowerCase() as 'token' | 'bearer', value: found[2] } : null;
}

/**
 * Starts the stand-in. The description loads on the first call in a process (about a second) and
 * is shared by every later server.
 *
 * @example
 * ```ts
 * const github = await startGitHubApi({ tokens: { ghp_test: 'agent-bot' } });
 * github.addIssue('acme/app', { number: 7, title: 'Bug' });
 * const octokit = new Octokit({ auth: 'ghp_test', baseUrl: github.apiUrl });
 * await octokit.rest.issues.createComment({ owner: 'acme', repo: 'app', issue_number: 7, body: 'On it' });
 * expect(github.comments('acme/app', 7).map((c) => c.body)).toEqual(['On it']);
 * expect(github.violations).toEqual([]);
 * ```
 */
export async function startGitHubApi(options: GitHubApiOptions = {}): Promise<GitHubApi> {
  const alreadyLoaded = loadedOnce;
  const description = openApiDescription();
  loadedOnce = true;
  const state = createState();
  const tokens = new Map<string, TokenEntry>();
  for (const [value, setup] of Object.entries(options.tokens ?? {})) {
    const details = typeof setup === 'string' ? { login: setup } : setup;
    const user = state.user(details.login ?? 'octocat', details.type ?? 'User');
    tokens.set(value, { user, readOnly: new Set((details.readOnly ?? []).map((name) => name.toLowerCase())) });
  }
  const requests: RecordedGitHubRequest[] = [];
  const violations: Violation[] = [];
  const origins: Origins = { web: '', api: '' };

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === API_ROOT || path.startsWith(`${API_ROOT}/`) || path.startsWith(`${API_ROOT}?`)) {
      const relative = path.slice(API_ROOT.length) || '/';
      handleApi(req, res, relative).catch((error: Error) => {
        // A fault of the stand-in, not of the client — but the test must not pass over it.
        violations.push({
          kind: 'response',
          method: req.method ?? 'GET',
          path: relative,
          operationId: null,
          problems: [`stand-in failed: ${error.stack ?? error.message}`],
        });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(basicError(`stand-in failed: ${error.message}`, 500)));
      });
    } else if (options.git) proxyToGitServer(options.git, req, res);
    else if (options.fallback) options.fallback(req, res);
    else {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found\n');
    }
  });

  async function handleApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(path, 'http://api.invalid');
    const raw = await readBody(req);
    const sent = credentials(req);
    const route = description.match(method, url.pathname);
    const operation = route?.operation ?? null;
    let body: unknown;
    const violate = (kind: ViolationKind, problems: string[]) => violations.push({ kind, method, path, operationId: operation?.operationId ?? null, problems });
    const answer = (reply: Reply) => {
      checkResponse(description, operation, reply, (problems) => violate('response', problems));
      requests.push({ method, path, operationId: operation?.operationId ?? null, status: reply.status, body, auth: sent?.scheme ?? null });
      const headers: Record<string, string> = {
        'x-github-media-type': 'github.v3; format=json',
        'x-github-request-id': `STANDIN:${requests.length}`,
        ...reply.headers,
      };
      if (reply.body === undefined) {
        res.writeHead(reply.status, headers);
        res.end();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(reply.body));
    };

    // GitHub reads the JSON before anything else: a body it cannot parse is a 400.
    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
      } catch (error) {
        violate('body', [`not JSON: ${(error as Error).message}`]);
        return answer({ status: 400, body: { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' } });
      }
    }
    let token: TokenEntry | undefined;
    if (options.tokens) {
      token = sent ? tokens.get(sent.value) : undefined;
      if (!token)
        return answer({ status: 401, body: { message: sent ? 'Bad credentials' : 'Requires authentication', documentation_url: DOCS, status: '401' } });
    }
    const user = token?.user ?? state.user('octocat');
    if (!route || !operation) {
      violate('route', [`${method} ${url.pathname} is no operation in GitHub's REST API`]);
      return answer({ status: 404, body: basicError('Not Found', 404) });
    }

    // Path parameters: a value of the wrong kind (`issues/abc`) is a route GitHub does not have.
    const params: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    const paramProblems: string[] = [];
    const queryProblems: string[] = [];
    for (const parameter of operation.parameters) {
      if (parameter.in === 'path') {
        const value = coerceParameter(route.params[parameter.name] ?? '', parameter.type);
        params[parameter.name] = value;
        for (const problem of description.check(parameter.schema, value)) paramProblems.push(`path ${parameter.name} ${problem.replace(/^\(root\) /, '')}`);
      } else if (parameter.in === 'query') {
        const text = url.searchParams.get(parameter.name);
        if (text === null) {
          if (parameter.required) queryProblems.push(`query ${parameter.name} is required`);
          continue;
        }
        const value = coerceParameter(text, parameter.type);
        query[parameter.name] = value;
        for (const problem of description.check(parameter.schema, value)) queryProblems.push(`query ${parameter.name} ${problem.replace(/^\(root\) /, '')}`);
      }
    }
    for (const name of url.searchParams.keys()) {
      if (!operation.parameters.some((p) => p.in === 'query' && p.name === name))
        queryProblems.push(`query ${name} is not a parameter of ${operation.operationId}`);
    }
    if (paramProblems.length > 0) {
      violate('parameter', paramProblems);
      return answer({ status: 404, body: basicError('Not Found', 404) });
    }
    if (queryProblems.length > 0) {
      violate('query', queryProblems);
      return answer({ status: 422, body: validationFailed(queryProblems.map((message) => ({ resource: 'Query', code: 'invalid', message }))) });
    }

    const fullName = 'owner' in params && 'repo' in params ? `${String(params.owner)}/${String(params.repo)}` : null;
    // What a token may write is the token's (like an installation's `issues: write`), not its user's
    // role: GitHub checks roles per operation, and a `read` collaborator may still comment and react.
    const canWrite = (name: string) => !token?.readOnly.has(name.toLowerCase());
    if (fullName && WRITES.has(method) && !canWrite(fullName)) return answer({ status: 403, body: basicError('Resource not accessible by integration', 403) });

    const bodyProblems = checkBody(description, operation, body);
    if (bodyProblems.length > 0) {
      violate('body', bodyProblems);
      const resource = operation.operationId.split('/')[0] ?? 'Request';
      return answer({ status: 422, body: validationFailed(bodyProblems.map((message) => ({ resource, code: 'invalid', message }))) });
    }

    const handler: Handler | undefined = handlers[operation.operationId];
    if (!handler) {
      violate('unimplemented', [`the stand-in does not simulate ${operation.operationId} (${operation.method} ${operation.template})`]);
      return answer({ status: 404, body: basicError('Not Found', 404) });
    }
    answer(await handler({ params, query, body, user, canWrite, origins, state, git: options.git, path }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origins.web = `http://127.0.0.1:${port}`;
  origins.api = `${origins.web}${API_ROOT}`;

  const repositoryOrThrow = (fullName: string) => {
    const repository = state.repository(fullName);
    if (!repository) throw new Error(`no repository ${fullName}: addRepository() it first`);
    return repository;
  };
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  // GitHub Apps act as `name[bot]`, which is a Bot account.
  const known = (login: string, type?: 'User' | 'Bot') => state.user(login, type ?? (login.endsWith('[bot]') ? 'Bot' : 'User'));

  return {
    url: origins.web,
    apiUrl: origins.api,
    requests,
    violations,
    state,
    descriptionLoadMs: alreadyLoaded ? 0 : description.loadMs,
    addRepository(fullName, setup) {
      state.addRepository(fullName, setup);
    },
    addIssue(fullName, setup = {}) {
      return state.addIssue(fullName, setup).number;
    },
    addIssueComment(fullName, issueNumber, setup) {
      const repository = repositoryOrThrow(fullName);
      if (!repository.issues.has(issueNumber)) throw new Error(`no issue ${fullName}#${issueNumber}`);
      const at = timestamp();
      const id = state.nextId();
      state.comments.set(id, {
        id,
        repository: repository.record.fullName,
        issueNumber,
        body: setup.body,
        user: state.user(setup.user ?? 'octocat'),
        createdAt: at,
        updatedAt: at,
      });
      return id;
    },
    addUser(login, setup = {}) {
      known(login, setup.type);
    },
    addCollaborator(fullName, login, role) {
      if (!COLLABORATOR_ROLES.includes(role)) throw new Error(`addCollaborator: ${String(role)} is not one of ${COLLABORATOR_ROLES.join(', ')}`);
      const repository = repositoryOrThrow(fullName);
      repository.collaborators.set(known(login).login.toLowerCase(), role);
    },
    addPullRequest(fullName, setup) {
      return state.addPullRequest(fullName, setup).number;
    },
    addReviewComment(fullName, pullNumber, setup) {
      return state.addReviewComment(fullName, pullNumber, setup).id;
    },
    refuseWrites(token, fullName) {
      const entry = tokens.get(token);
      if (!entry) throw new Error('refuseWrites: not one of the configured tokens');
      entry.readOnly.add(fullName.toLowerCase());
    },
    comments: (fullName, issueNumber) =>
      [...state.comments.values()].filter((c) => same(c.repository, fullName) && c.issueNumber === issueNumber).sort((a, b) => a.id - b.id),
    reviewComments: (fullName, pullNumber) =>
      [...state.reviewComments.values()].filter((c) => same(c.repository, fullName) && c.pullNumber === pullNumber).sort((a, b) => a.id - b.id),
    reactions: (fullName, on) =>
      state.reactions.filter((r) => {
        if (!same(r.subject.repository, fullName)) return false;
        if ('issue' in on) return r.subject.kind === 'issue' && r.subject.number === on.issue;
        if ('comment' in on) return r.subject.kind === 'issue_comment' && r.subject.id === on.comment;
        return r.subject.kind === 'pull_request_review_comment' && r.subject.id === on.reviewComment;
      }),
    labels: (fullName, issueNumber) => [...(repositoryOrThrow(fullName).issues.get(issueNumber)?.labels ?? [])],
    pulls: (fullName) =>
      [...repositoryOrThrow(fullName).pulls.values()].map((p) => ({
        number: p.number,
        title: p.title,
        body: p.body,
        head: p.head.ref,
        base: p.base.ref,
        draft: p.draft,
        user: p.user.login,
      })),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function checkBody(description: OpenApiDescription, operation: Operation, body: unknown): string[] {
  if (!operation.body) return body === undefined ? [] : [`${operation.operationId} takes no JSON body`];
  if (body === undefined) return operation.body.required ? ['a JSON body is required'] : [];
  return description.check(operation.body.schema, body).map((problem) => `body ${problem}`);
}

/**
 * Checks an answer against the schema the description gives for its status. Errors every operation
 * can answer (401, 403, 404 — rarely all listed) are held to GitHub's `basic-error` shape instead;
 * any other status the operation does not document is a violation.
 */
function checkResponse(description: OpenApiDescription, operation: Operation | null, reply: Reply, violate: (problems: string[]) => void): void {
  const documented = operation ? operation.responses[String(reply.status)] : undefined;
  if (documented === undefined && reply.status < 400) {
    violate([`status ${reply.status} is not documented for ${operation?.operationId ?? 'this request'}`]);
    return;
  }
  const fallback = reply.status === 422 ? '#/components/schemas/validation-error' : '#/components/schemas/basic-error';
  const schema = documented === undefined ? fallback : documented;
  if (schema === null) {
    if (reply.body !== undefined) violate([`status ${reply.status} has no JSON body in the description`]);
    return;
  }
  const problems = description.check(schema, reply.body);
  if (problems.length > 0) violate(problems.map((problem) => `response ${reply.status} ${problem}`));
}
