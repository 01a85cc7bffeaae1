/**
 * The few Bitbucket Cloud REST 2.0 calls the platform makes for a user — comment on a pull
 * request (or reply in a comment's thread), edit that comment, find it again by its marker, open a
 * pull request, and ask a person's permission on a repository — as one small interface, and its
 * implementation over Node's `fetch` with the owner's token.
 *
 * Why no client library: the `bitbucket` package was last released in May 2024, on node-fetch 2
 * and an older description of the API; `@coderabbitai/bitbucket` is types generated from
 * Bitbucket's OpenAPI description over `openapi-fetch`, ES-module only. Five JSON calls do not
 * need either, and what they send and read is checked in the tests against Bitbucket's own
 * OpenAPI description (the `@agent-platform/testing/bitbucket-api` stand-in).
 *
 * The token is sent as `Authorization: Bearer`: a workspace, project or repository access token
 * (or an OAuth access token), the same token the platform clones with (`x-token-auth`, see
 * `agents/git-checkout.ts`). Errors come out as {@link BitbucketError}: the status and
 * Bitbucket's message, never the token.
 * @module
 */
import { PlatformError } from '../kernel/errors.js';
import { HostError, scrubCredential } from '../ports/answer-host.js';
import type { RepositoryRole } from '../github/github-api.js';

export interface BitbucketRepository {
  workspace: string;
  slug: string;
}

export interface BitbucketComment {
  id: number;
  url: string;
}

export interface BitbucketApi {
  /**
   * The effective permission (direct or through a group) of the account `account` (its Atlassian
   * account id, or its `{uuid}`) on the repository, as a repository admin reads it
   * (`GET /workspaces/{workspace}/permissions/repositories/{repo_slug}`); `none` for someone with
   * none. Throws when the token may not ask (its account is no admin of the repository).
   */
  permissionOf(repository: BitbucketRepository, account: string): Promise<RepositoryRole>;
  /** The newest comment on the pull request, updated since `since`, whose text holds `marker`; `null` when none. */
  findComment(repository: BitbucketRepository, pullRequest: number, marker: string, since: string): Promise<BitbucketComment | null>;
  /** A comment on the pull request; with `parentId`, a reply in that comment's thread. */
  createComment(repository: BitbucketRepository, pullRequest: number, body: string, parentId?: number | null): Promise<BitbucketComment>;
  /** `null` when the comment is gone (deleted by someone). */
  updateComment(repository: BitbucketRepository, pullRequest: number, id: number, body: string): Promise<BitbucketComment | null>;
  /** A pull request from branch `head` into `base` (default: the repository's main branch). */
  createPullRequest(
    repository: BitbucketRepository,
    input: { title: string; body?: string; head: string; base?: string; draft?: boolean },
  ): Promise<{ number: number; url: string }>;
}

/** A Bitbucket call that failed: its HTTP status (`null`: Bitbucket was not reached) and why, in words a user acts on. */
export class BitbucketError extends HostError {
  override name = 'BitbucketError';
  constructor(status: number | null, message: string) {
    super('bitbucket', status, message);
  }
}

/** Each call's time limit: a slow Bitbucket must not hold a run's report (or an agent's step) for long. */
const CALL_TIMEOUT_MS = 15_000;
/** Asked while a webhook waits for its answer (Bitbucket gives up after 10 s). */
const PERMISSION_TIMEOUT_MS = 5_000;
/** Pages of 100 comments read at most while looking for a run's earlier comment. */
const FIND_PAGES = 5;

const PUBLIC_API = 'https://api.bitbucket.org/2.0';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Where the REST API is for a stored token's `host`: Bitbucket Cloud's (`api.bitbucket.org/2.0`)
 * for none, `bitbucket.org` or `api.bitbucket.org`; otherwise `https://HOST/2.0` — a proxy in
 * front of Bitbucket, or a test stand-in (plain `http` only on a loopback host, as for cloning).
 */
export function bitbucketApiBaseUrl(host: string | null): string {
  const text = host?.trim() ?? '';
  if (text === '' || /^(https?:\/\/)?(api\.)?bitbucket\.org(\/2\.0)?\/?$/i.test(text)) return PUBLIC_API;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new PlatformError('BAD_REQUEST', `the Bitbucket host "${text.slice(0, 200)}" is not a host name or URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    throw new PlatformError('BAD_REQUEST', `the Bitbucket host ${url.origin} uses ${url.protocol.slice(0, -1)}, allowed only for a loopback host; use https`);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith('/2.0') ? path : `${path}/2.0`}`;
}

/** `workspace/repo_slug` as a {@link BitbucketRepository}. */
export function bitbucketRepositoryOf(fullName: string): BitbucketRepository {
  const [workspace = '', slug = ''] = fullName.split('/');
  return { workspace, slug };
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);

/** Bitbucket's words for a refusal (`{ type: "error", error: { message, detail } }`), with what it usually means. */
function refusal(status: number, data: unknown, token: string): BitbucketError {
  const error = object(object(data)?.error);
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const detail = typeof error?.detail === 'string' ? ` — ${error.detail}` : '';
  const hint =
    status === 401
      ? ' (the stored Bitbucket token was refused: expired or revoked?)'
      : status === 403
        ? " (the token's account may lack permission on this repository, or the token a scope)"
        : status === 404
          ? ' (the repository or pull request is not there, or the token cannot see it)'
          : '';
  return new BitbucketError(status, scrubCredential(`Bitbucket answered ${status}: ${message}${detail}${hint}`, token));
}

interface Answer {
  status: number;
  data: unknown;
}

/** Permissions from weakest to strongest, as Bitbucket names them. */
const PERMISSIONS: readonly RepositoryRole[] = ['read', 'write', 'admin'];

/** The Bitbucket Cloud API for one token, on its host (`null`: bitbucket.org). */
export function createBitbucketApi(token: string, host: string | null, fetcher: typeof fetch = fetch): BitbucketApi {
  const base = bitbucketApiBaseUrl(host);
  const repoPath = (repository: BitbucketRepository) => `/repositories/${encodeURIComponent(repository.workspace)}/${encodeURIComponent(repository.slug)}`;

  /** One call: its answer for a 2xx (and for the statuses `accept` names), a {@link BitbucketError} otherwise. */
  const call = async (
    method: string,
    path: string,
    options: { query?: Record<string, string>; body?: unknown; accept?: number[]; timeoutMs?: number } = {},
  ): Promise<Answer> => {
    const url = new URL(`${base}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    let response: Response;
    try {
      response = await fetcher(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'user-agent': 'agent-platform',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs ?? CALL_TIMEOUT_MS),
      });
    } catch (error) {
      const timedOut = (error as { name?: unknown })?.name === 'TimeoutError';
      const said = timedOut
        ? `no answer within ${Math.round((options.timeoutMs ?? CALL_TIMEOUT_MS) / 1000)} s`
        : error instanceof Error
          ? error.message
          : String(error);
      throw new BitbucketError(null, scrubCredential(`Bitbucket could not be reached: ${said}`, token));
    }
    const text = await response.text().catch(() => '');
    let data: unknown = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      data = null;
    }
    if (response.ok || options.accept?.includes(response.status)) return { status: response.status, data };
    throw refusal(response.status, data, token);
  };

  const commentOf = (data: unknown, fallback: string): BitbucketComment => {
    const comment = object(data);
    const href = object(object(comment?.links)?.html)?.href;
    return { id: Number(comment?.id), url: typeof href === 'string' ? href : fallback };
  };
  const pullUrl = (repository: BitbucketRepository, pullRequest: number) =>
    `https://bitbucket.org/${repository.workspace}/${repository.slug}/pull-requests/${pullRequest}`;

  return {
    async permissionOf(repository, account) {
      const field = account.startsWith('{') ? 'user.uuid' : 'user.account_id';
      const { data } = await call(
        'GET',
        `/workspaces/${encodeURIComponent(repository.workspace)}/permissions/repositories/${encodeURIComponent(repository.slug)}`,
        {
          query: { q: `${field}=${JSON.stringify(account)}`, pagelen: '100' },
          timeoutMs: PERMISSION_TIMEOUT_MS,
        },
      );
      // The filter is Bitbucket's; the match is checked here too, so an entry of someone else never counts.
      const values = Array.isArray(object(data)?.values) ? (object(data)?.values as unknown[]) : [];
      let strongest: RepositoryRole = 'none';
      for (const entry of values.map(object)) {
        const user = object(entry?.user);
        if (user?.account_id !== account && user?.uuid !== account) continue;
        const permission = PERMISSIONS.find((name) => name === entry?.permission);
        if (permission && PERMISSIONS.indexOf(permission) > PERMISSIONS.indexOf(strongest)) strongest = permission;
      }
      return strongest;
    },
    async findComment(repository, pullRequest, marker, since) {
      let found: BitbucketComment | null = null;
      for (let page = 1; page <= FIND_PAGES && !found; page++) {
        const { data } = await call('GET', `${repoPath(repository)}/pullrequests/${pullRequest}/comments`, {
          query: { q: `updated_on>=${since}`, sort: '-updated_on', pagelen: '100', page: String(page) },
        });
        const values = Array.isArray(object(data)?.values) ? (object(data)?.values as unknown[]) : [];
        for (const comment of values.map(object)) {
          const raw = object(comment?.content)?.raw;
          const updated = typeof comment?.updated_on === 'string' ? Date.parse(comment.updated_on) : Number.NaN;
          if (comment?.deleted === true || typeof raw !== 'string' || !raw.includes(marker) || !(updated >= Date.parse(since))) continue;
          found = commentOf(comment, pullUrl(repository, pullRequest));
          break;
        }
        if (typeof object(data)?.next !== 'string') break;
      }
      return found;
    },
    async createComment(repository, pullRequest, body, parentId) {
      const { data } = await call('POST', `${repoPath(repository)}/pullrequests/${pullRequest}/comments`, {
        body: { type: 'pullrequest_comment', content: { raw: body }, ...(parentId ? { parent: { type: 'pullrequest_comment', id: parentId } } : {}) },
      });
      return commentOf(data, pullUrl(repository, pullRequest));
    },
    async updateComment(repository, pullRequest, id, body) {
      const { status, data } = await call('PUT', `${repoPath(repository)}/pullrequests/${pullRequest}/comments/${id}`, {
        body: { type: 'pullrequest_comment', content: { raw: body } },
        accept: [404],
      });
      return status === 404 ? null : commentOf(data, pullUrl(repository, pullRequest));
    },
    async createPullRequest(repository, input) {
      const { data } = await call('POST', `${repoPath(repository)}/pullrequests`, {
        body: {
          type: 'pullrequest',
          title: input.title,
          source: { branch: { name: input.head } },
          // Without a destination, Bitbucket opens it into the repository's main branch.
          ...(input.base === undefined ? {} : { destination: { branch: { name: input.base } } }),
          ...(input.body === undefined ? {} : { description: input.body }),
          ...(input.draft === undefined ? {} : { draft: input.draft }),
        },
      });
      const pull = object(data);
      const href = object(object(pull?.links)?.html)?.href;
      const number = Number(pull?.id);
      return { number, url: typeof href === 'string' ? href : pullUrl(repository, number) };
    },
  };
}
