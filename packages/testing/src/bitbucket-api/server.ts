/**
 * A Bitbucket Cloud REST API stand-in for tests on 127.0.0.1, served under `/2.0` as
 * api.bitbucket.org serves it. Every request is checked against Bitbucket's published OpenAPI
 * description (the operations the platform calls, vendored in `bitbucket-openapi.json`) — route,
 * path and query parameters, JSON body, the token's scopes — and every answer against the schema
 * for its status before it is sent; whatever does not conform lands in `violations`, which a test
 * asserts is empty. Requests outside `/2.0` go to a git server (proxied), so one origin serves
 * the repositories and the API, as a provider token's one `host` names them.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GitServer } from '../git-server/index.js';
import { proxyToGitServer } from '../git-server/proxy.js';
import { readBody } from '../http-support/read-body.js';
import { bitbucketDescription, type BitbucketDescription, type BitbucketOperation } from './openapi.js';
import { type Handler, handlers, type Reply } from './routes.js';
import {
  type AccountRecord,
  type BitbucketPermission,
  type BitbucketState,
  type CommentRecord,
  createState,
  errorBody,
  placeholderHash,
  type PullRequestRecord,
  pullKey,
  timestamp,
} from './state.js';

export const BITBUCKET_API_ROOT = '/2.0';

export interface BitbucketApiToken {
  /** The account the token acts as. */
  nickname: string;
  displayName?: string;
  accountId?: string;
  uuid?: string;
  /** `app_user` for a workspace, project or repository access token's bot account. Default `user`. */
  type?: AccountRecord['type'];
  /** The OAuth scopes the token was given (`pullrequest:write`, `repository:admin`, …). Default: every scope. */
  scopes?: string[];
}

export interface BitbucketApiOptions {
  /** Accepted tokens (sent as `Authorization: Bearer …`) → who they act as (a nickname, or the details). */
  tokens: Record<string, string | BitbucketApiToken>;
  /** A git server to proxy every request outside `/2.0` to, whose branches pull requests are made from. */
  git?: GitServer;
}

export type BitbucketViolationKind = 'route' | 'unimplemented' | 'parameter' | 'query' | 'body' | 'response';

/** Something that does not match Bitbucket's OpenAPI description — a test asserts there are none. */
export interface BitbucketViolation {
  kind: BitbucketViolationKind;
  method: string;
  /** Path and query relative to `/2.0`. */
  path: string;
  operationId: string | null;
  problems: string[];
}

export interface RecordedBitbucketRequest {
  method: string;
  /** Path and query relative to `/2.0`. */
  path: string;
  operationId: string | null;
  status: number;
  /** The parsed JSON body (`undefined` when there was none). */
  body: unknown;
  /** How the credential was sent — never the credential. */
  auth: 'bearer' | 'basic' | null;
}

export interface BitbucketApi {
  /** The origin, `http://127.0.0.1:<port>`: git requests, `html` links, and a provider token's `host`. */
  url: string;
  /** The REST API root, `http://127.0.0.1:<port>/2.0`. */
  apiUrl: string;
  requests: RecordedBitbucketRequest[];
  violations: BitbucketViolation[];
  state: BitbucketState;
  addRepository(fullName: string, setup?: { mainbranch?: string; isPrivate?: boolean }): void;
  /** Makes `nickname` a known account; its ids (as webhooks name the actor). */
  addUser(nickname: string, setup?: { accountId?: string; uuid?: string; displayName?: string }): { uuid: string; accountId: string; nickname: string };
  /** Gives `nickname` a permission on the repository, as `GET /workspaces/…/permissions/repositories/…` tells it (a token's account: also what it may do). */
  addPermission(fullName: string, nickname: string, permission: BitbucketPermission): void;
  /** Adds an open pull request from branch `source` (into the main branch by default); its id. */
  addPullRequest(fullName: string, setup: { source: string; destination?: string; title?: string; description?: string; author?: string }): number;
  /** Adds a comment on a pull request by `user` (default: a `reviewer` account); its id. */
  addComment(fullName: string, pullRequest: number, setup: { raw: string; user?: string; parentId?: number }): number;
  /** The comments on a pull request, oldest first. */
  comments(fullName: string, pullRequest: number): CommentRecord[];
  pulls(fullName: string): PullRequestRecord[];
  close(): Promise<void>;
}

interface TokenEntry {
  user: AccountRecord;
  scopes: Set<string> | null;
}

/** Bitbucket's scopes and those each implies (`pullrequest:write` lets a token read pull requests and write the repository). */
const IMPLIED: Record<string, string[]> = {
  'repository:write': ['repository'],
  'repository:admin': ['repository', 'repository:write'],
  pullrequest: ['repository'],
  'pullrequest:write': ['pullrequest', 'repository', 'repository:write'],
  account: [],
};

function granted(scopes: string[]): Set<string> {
  const all = new Set<string>();
  for (const scope of scopes) for (const one of [scope, ...(IMPLIED[scope] ?? [])]) all.add(one);
  return all;
}

/** Query parameters Bitbucket takes on every operation (partial responses) and on every list (pages, filter, sort). */
const EVERYWHERE = ['fields'];
const ON_LISTS = ['page', 'pagelen', 'q', 'sort'];

function checkResponse(description: BitbucketDescription, operation: BitbucketOperation | null, reply: Reply): string[] {
  const documented = operation?.responses[String(reply.status)];
  if (documented === undefined && reply.status < 400) return [`status ${reply.status} is not documented for ${operation?.operationId ?? 'this request'}`];
  const schema = documented ?? '#/components/schemas/error';
  if (schema === null) return reply.body === undefined ? [] : [`status ${reply.status} has no JSON body in the description`];
  return description.check(schema, reply.body).map((problem) => `response ${reply.status} ${problem}`);
}

/**
 * Starts the stand-in.
 *
 * @example
 * ```ts
 * const bitbucket = await startBitbucketApi({ tokens: { 'bb-token': 'acme-bot' }, git });
 * bitbucket.addRepository('acme/app');
 * const id = bitbucket.addPullRequest('acme/app', { source: 'feature' });
 * // … the code under test comments with Authorization: Bearer bb-token at bitbucket.apiUrl …
 * expect(bitbucket.comments('acme/app', id).map((c) => c.raw)).toEqual(['On it']);
 * expect(bitbucket.violations).toEqual([]);
 * ```
 */
export async function startBitbucketApi(options: BitbucketApiOptions): Promise<BitbucketApi> {
  const description = bitbucketDescription();
  const state = createState();
  const tokens = new Map<string, TokenEntry>();
  for (const [value, setup] of Object.entries(options.tokens)) {
    const details = typeof setup === 'string' ? { nickname: setup } : setup;
    const user = state.account(details.nickname, details);
    tokens.set(value, { user, scopes: details.scopes ? granted(details.scopes) : null });
  }
  const requests: RecordedBitbucketRequest[] = [];
  const violations: BitbucketViolation[] = [];
  const origins = { web: '', api: '' };

  async function handleApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(path, 'http://api.invalid');
    const raw = await readBody(req);
    const authorization = req.headers.authorization ?? '';
    const scheme = /^bearer\s/i.test(authorization) ? 'bearer' : /^basic\s/i.test(authorization) ? 'basic' : null;
    const route = description.match(method, url.pathname);
    const operation = route?.operation ?? null;
    let body: unknown;
    const violate = (kind: BitbucketViolationKind, problems: string[]) =>
      violations.push({ kind, method, path, operationId: operation?.operationId ?? null, problems });
    const answer = (reply: Reply) => {
      const problems = checkResponse(description, operation, reply);
      if (problems.length > 0) violate('response', problems);
      requests.push({ method, path, operationId: operation?.operationId ?? null, status: reply.status, body, auth: scheme });
      if (reply.body === undefined) {
        res.writeHead(reply.status, reply.headers ?? {});
        res.end();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    };

    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
      } catch (error) {
        violate('body', [`not JSON: ${(error as Error).message}`]);
        return answer({ status: 400, body: errorBody('Bad request', 'The body is not JSON') });
      }
    }
    const token = scheme === 'bearer' ? tokens.get(authorization.replace(/^bearer\s+/i, '').trim()) : undefined;
    if (!token) return answer({ status: 401, body: errorBody(scheme ? 'Access token expired or invalid.' : 'Authentication required.') });
    if (!route || !operation) {
      violate('route', [`${method} ${url.pathname} is not an operation the vendored description has (or the stand-in simulates)`]);
      return answer({ status: 404, body: errorBody('Resource not found') });
    }

    const params: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const parameter of operation.pathParameters) {
      const text = route.params[parameter.name] ?? '';
      const value = parameter.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
      params[parameter.name] = value;
      for (const problem of description.check(parameter.schema, value)) problems.push(`path ${parameter.name} ${problem.replace(/^\(root\) /, '')}`);
    }
    if (problems.length > 0) {
      violate('parameter', problems);
      return answer({ status: 404, body: errorBody('Resource not found') });
    }
    const known = new Set([...operation.queryParameters.map((p) => p.name), ...EVERYWHERE, ...(operation.paginated ? ON_LISTS : [])]);
    const queryProblems = [...new Set(url.searchParams.keys())]
      .filter((name) => !known.has(name))
      .map((name) => `query ${name} is not a parameter of ${operation.operationId}`);
    for (const name of ['page', 'pagelen']) {
      const value = url.searchParams.get(name);
      if (value !== null && !/^[1-9]\d*$/.test(value)) queryProblems.push(`query ${name} must be a positive integer`);
    }
    if (queryProblems.length > 0) {
      violate('query', queryProblems);
      return answer({ status: 400, body: errorBody('Invalid query parameters', queryProblems.join('; ')) });
    }
    if (token.scopes && !operation.scopes.every((scope) => token.scopes?.has(scope)))
      return answer({
        status: 403,
        body: errorBody('Your credentials lack one or more required privilege scopes.', `required: ${operation.scopes.join(', ')}`),
      });

    const bodyProblems = !operation.body
      ? body === undefined
        ? []
        : [`${operation.operationId} takes no JSON body`]
      : body === undefined
        ? operation.body.required
          ? ['a JSON body is required']
          : []
        : description.check(operation.body.schema, body).map((problem) => `body ${problem}`);
    if (bodyProblems.length > 0) {
      violate('body', bodyProblems);
      return answer({ status: 400, body: errorBody('Bad request', bodyProblems.join('; ')) });
    }
    const handler: Handler | undefined = handlers[operation.operationId];
    if (!handler) {
      violate('unimplemented', [`the stand-in does not simulate ${operation.operationId}`]);
      return answer({ status: 404, body: errorBody('Resource not found') });
    }
    answer(await handler({ params, query: url.searchParams, body, user: token.user, state, origins, git: options.git, path }));
  }

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === BITBUCKET_API_ROOT || path.startsWith(`${BITBUCKET_API_ROOT}/`) || path.startsWith(`${BITBUCKET_API_ROOT}?`)) {
      const relative = path.slice(BITBUCKET_API_ROOT.length) || '/';
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
        res.end(JSON.stringify(errorBody(`stand-in failed: ${error.message}`)));
      });
    } else if (options.git) proxyToGitServer(options.git, req, res);
    else {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origins.web = `http://127.0.0.1:${port}`;
  origins.api = `${origins.web}${BITBUCKET_API_ROOT}`;

  const repositoryOrThrow = (fullName: string) => {
    const repository = state.repository(fullName);
    if (!repository) throw new Error(`no repository ${fullName}: addRepository() it first`);
    return repository;
  };

  return {
    url: origins.web,
    apiUrl: origins.api,
    requests,
    violations,
    state,
    addRepository(fullName, setup) {
      state.addRepository(fullName, setup);
    },
    addUser(nickname, setup = {}) {
      const account = state.account(nickname, setup);
      return { uuid: account.uuid, accountId: account.accountId, nickname: account.nickname };
    },
    addPermission(fullName, nickname, permission) {
      repositoryOrThrow(fullName).permissions.set(state.account(nickname).uuid, permission);
    },
    addPullRequest(fullName, setup) {
      const repository = repositoryOrThrow(fullName);
      const at = timestamp();
      const destination = setup.destination ?? repository.mainbranch;
      const pull: PullRequestRecord = {
        repository: repository.fullName,
        id: repository.nextPullRequest++,
        title: setup.title ?? `Changes from ${setup.source}`,
        description: setup.description ?? '',
        source: setup.source,
        destination,
        sourceHash: placeholderHash(`${fullName}:${setup.source}`),
        destinationHash: placeholderHash(`${fullName}:${destination}`),
        author: state.account(setup.author ?? 'reviewer'),
        draft: false,
        closeSourceBranch: false,
        state: 'OPEN',
        createdOn: at,
        updatedOn: at,
      };
      state.pulls.set(pullKey(repository.fullName, pull.id), pull);
      return pull.id;
    },
    addComment(fullName, pullRequest, setup) {
      const repository = repositoryOrThrow(fullName);
      if (!state.pull(fullName, pullRequest)) throw new Error(`no pull request ${fullName}#${pullRequest}`);
      const at = timestamp();
      const comment: CommentRecord = {
        id: state.nextCommentId(),
        repository: repository.fullName,
        pullRequest,
        raw: setup.raw,
        user: state.account(setup.user ?? 'reviewer'),
        parentId: setup.parentId ?? null,
        createdOn: at,
        updatedOn: at,
      };
      state.comments.set(comment.id, comment);
      return comment.id;
    },
    comments: (fullName, pullRequest) =>
      [...state.comments.values()]
        .filter((comment) => comment.repository.toLowerCase() === fullName.toLowerCase() && comment.pullRequest === pullRequest)
        .sort((a, b) => a.id - b.id),
    pulls: (fullName) => [...state.pulls.values()].filter((pull) => pull.repository.toLowerCase() === fullName.toLowerCase()).sort((a, b) => a.id - b.id),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
