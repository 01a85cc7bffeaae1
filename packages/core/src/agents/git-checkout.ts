/**
 * The repository a conversation or run works on, cloned into the sandbox's working directory
 * before the agent starts. git runs inside the sandbox (the image must have it),
 * through the runtime's `exec`, so the same code serves every runtime.
 *
 * The token never reaches a command line, a URL or a file: git asks a credential helper that
 * reads it from the environment of the command (`GITHUB_TOKEN`, `GITLAB_TOKEN`, …). The same
 * helper is kept in the repository's config, scoped to the remote's host, so a later `git push`
 * by the agent works whenever that variable is set — as it is for the agent's commands.
 * @module
 */
import { redact } from './line-splitter.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import { providerTypeSchema, type ProviderType } from '../schemas/provider-tokens.js';
import { CHAT_PROVIDER_TYPES } from '../schemas/vocabulary.js';

export interface PrepareRepositoryInput {
  /** `owner/name` (GitLab: `group/subgroup/name`) on the provider's host, or a full clone URL. */
  repository: string;
  /** Default `github`. */
  provider?: ProviderType;
  /** The owner's token for the provider; `null` clones anonymously. */
  token: string | null;
  /**
   * The provider's host (`github.com`, `gitlab.example.com`, or a base URL such as
   * `https://example.com/gitlab`); `null` takes the provider's public host.
   */
  host: string | null;
  /** The branch to check out; `null` takes the remote's default branch. */
  branch: string | null;
  /**
   * A pull (merge) request whose head is checked out instead, on a local branch named `branch`
   * (tracking it on the remote when it is there) or `pr-<n>`.
   */
  pullRequest: number | null;
  gitUserName: string | null;
  gitUserEmail: string | null;
  signal?: AbortSignal;
  /** Per git command. Default 10 minutes. */
  timeoutMs?: number;
}

export interface PreparedRepository {
  /** The remote's URL (never with credentials). */
  url: string;
  /** The local branch checked out; `null` for an empty repository. */
  branch: string | null;
  /** The commit checked out; `null` for an empty repository. */
  commit: string | null;
}

/** Why the repository could not be prepared; the message never holds the token. */
export class RepositoryError extends Error {}

/** The identity commits get when the owner set none. */
export const DEFAULT_GIT_USER_NAME = 'agent-platform';
export const DEFAULT_GIT_USER_EMAIL = 'agent-platform@localhost';

const PUBLIC_HOSTS: Partial<Record<ProviderType, string>> = {
  github: 'github.com',
  gitlab: 'gitlab.com',
  bitbucket: 'bitbucket.org',
  azure_devops: 'dev.azure.com',
};

/** The Basic-auth username each provider expects with a token as the password. */
const TOKEN_USERNAMES: Partial<Record<ProviderType, string>> = { github: 'x-access-token', gitlab: 'oauth2', bitbucket: 'x-token-auth' };

/** Where each provider keeps a pull request's head (Azure DevOps only keeps the merge result). */
const PULL_REQUEST_REFS: Partial<Record<ProviderType, (n: number) => string>> = {
  github: (n) => `refs/pull/${n}/head`,
  forgejo: (n) => `refs/pull/${n}/head`,
  enterprise_sso: (n) => `refs/pull/${n}/head`,
  gitlab: (n) => `refs/merge-requests/${n}/head`,
  bitbucket_data_center: (n) => `refs/pull-requests/${n}/from`,
  azure_devops: (n) => `refs/pull/${n}/merge`,
};

const REPOSITORY_NAME = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The variable the agent's commands carry the provider's token in (`azure_devops` → `AZURE_DEVOPS_TOKEN`). */
export const tokenVariable = (provider: ProviderType): string => `${provider.toUpperCase()}_TOKEN`;

interface Remote {
  url: string;
  /** `scheme://host[:port]`: what the credential helper is scoped to. */
  origin: string;
  /** How errors name the repository. */
  display: string;
  /** Whether the token goes to this remote (a full URL gets it only on the token's host and port). */
  sendToken: boolean;
}

function parseUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RepositoryError(`${what} is not a valid URL`);
  }
  if (url.username || url.password) throw new RepositoryError(`${what} must not contain credentials`);
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    throw new RepositoryError(`${what} uses plain http, allowed only for a loopback host; use https`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RepositoryError(`${what} must be an https URL`);
  return url;
}

function remoteOf(input: PrepareRepositoryInput, provider: ProviderType): Remote {
  const hostText = input.host?.trim() || PUBLIC_HOSTS[provider];
  const base = hostText ? parseUrl(/^[a-z][a-z0-9+.-]*:\/\//i.test(hostText) ? hostText : `https://${hostText}`, `the ${provider} host`) : null;
  const repository = input.repository.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repository)) {
    const url = parseUrl(repository, 'the repository URL');
    url.search = '';
    url.hash = '';
    return { url: url.href, origin: url.origin, display: url.href, sendToken: base !== null && base.host === url.host };
  }
  const name = repository.replace(/\.git$/, '').replace(/^\/+|\/+$/g, '');
  if (!REPOSITORY_NAME.test(name) || name.split('/').some((part) => part === '.' || part === '..')) {
    throw new RepositoryError(`"${repository.slice(0, 200)}" is not a repository (expected owner/name or an https URL)`);
  }
  if (!base) throw new RepositoryError(`cloning ${name} failed: no host is known for ${provider}; store the token with its host`);
  const path = `${base.pathname.replace(/\/+$/, '')}/${name}${provider === 'azure_devops' ? '' : '.git'}`;
  return { url: `${base.origin}${path}`, origin: base.origin, display: name, sendToken: true };
}

/** A branch name git accepts and no command can mistake for an option. */
function checkBranch(branch: string): string {
  const ok =
    branch.length > 0 &&
    branch.length <= 250 &&
    !branch.startsWith('-') &&
    !branch.startsWith('/') &&
    !branch.endsWith('/') &&
    !branch.endsWith('.lock') &&
    !branch.endsWith('.') &&
    !branch.includes('..') &&
    !branch.includes('@{') &&
    !branch.includes('//') &&
    !/[\u0000-\u0020\u007f~^:?*[\\]/.test(branch);
  if (!ok) throw new RepositoryError(`"${branch.slice(0, 250)}" is not a valid branch name`);
  return branch;
}

/**
 * The credential helper kept in the repository's config: it answers `get` with the token from
 * the environment variable, and nothing when the variable is unset (git then fails cleanly).
 */
const credentialHelper = (username: string, variable: string): string =>
  `!f() { test "$1" = get || exit 0; test -n "\${${variable}:-}" || exit 0; echo username=${username}; echo "password=\${${variable}}"; }; f`;

interface GitOutput {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

/**
 * Clones `input.repository` into the sandbox's working directory, checks out the branch or the
 * pull request's head and sets the git identity. Throws {@link RepositoryError} with a clear
 * message, free of the token, when it cannot.
 *
 * @example
 * ```ts
 * await prepareRepository(runtime, sandboxId, {
 *   repository: 'acme/app', provider: 'github', token, host: null,
 *   branch: 'feature/x', pullRequest: null, gitUserName: 'Alice', gitUserEmail: 'alice@example.com',
 * });
 * ```
 */
export async function prepareRepository(runtime: SandboxRuntime, sandboxId: string, input: PrepareRepositoryInput): Promise<PreparedRepository> {
  const provider = input.provider ?? 'github';
  const username = TOKEN_USERNAMES[provider] ?? 'x-access-token';
  const secrets = input.token ? [input.token, Buffer.from(`${username}:${input.token}`).toString('base64'), encodeURIComponent(input.token)] : [];
  const clean = (text: string) => redact(text, secrets);
  try {
    return await prepare(runtime, sandboxId, input, provider, username, clean);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new RepositoryError(clean(message));
  }
}

async function prepare(
  runtime: SandboxRuntime,
  sandboxId: string,
  input: PrepareRepositoryInput,
  provider: ProviderType,
  username: string,
  clean: (text: string) => string,
): Promise<PreparedRepository> {
  const remote = remoteOf(input, provider);
  const branch = input.branch === null ? null : checkBranch(input.branch.trim());
  const pullRequest = input.pullRequest;
  if (pullRequest !== null && (!Number.isSafeInteger(pullRequest) || pullRequest <= 0))
    throw new RepositoryError(`${pullRequest} is not a pull request number`);
  const pullRef = pullRequest === null ? null : PULL_REQUEST_REFS[provider]?.(pullRequest);
  if (pullRequest !== null && !pullRef) throw new RepositoryError(`pull requests of ${provider} cannot be checked out by number; give the branch instead`);
  const variable = tokenVariable(provider);
  const failed = `cloning ${remote.display} failed`;

  const env: Record<string, string> = {
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    AGENT_PLATFORM_GIT_URL: remote.url,
    AGENT_PLATFORM_GIT_ORIGIN: remote.origin,
    AGENT_PLATFORM_GIT_HELPER: credentialHelper(username, variable),
    AGENT_PLATFORM_GIT_USER_NAME: input.gitUserName?.trim() || DEFAULT_GIT_USER_NAME,
    AGENT_PLATFORM_GIT_USER_EMAIL: input.gitUserEmail?.trim() || DEFAULT_GIT_USER_EMAIL,
    AGENT_PLATFORM_GIT_BRANCH: branch ?? '',
    AGENT_PLATFORM_GIT_PULL_REF: pullRef ?? '',
    AGENT_PLATFORM_GIT_PULL_LOCAL: pullRequest === null ? '' : (branch ?? `pr-${pullRequest}`),
    ...(input.token && remote.sendToken ? { [variable]: input.token } : {}),
  };
  const git = async (command: string): Promise<GitOutput> => {
    const output: GitOutput = { exitCode: null, stdout: '', stderr: '', timedOut: false, cancelled: false };
    for await (const event of runtime.exec(sandboxId, {
      command,
      env,
      timeoutMs: input.timeoutMs ?? 600_000,
      maxOutputBytes: 64 * 1024,
      ...(input.signal ? { signal: input.signal } : {}),
    })) {
      if (event.type === 'stdout') output.stdout += event.data;
      else if (event.type === 'stderr') output.stderr += event.data;
      else Object.assign(output, event.result);
    }
    if (output.cancelled) throw new RepositoryError(`${failed}: cancelled`);
    if (output.timedOut) throw new RepositoryError(`${failed}: timed out after ${Math.round((input.timeoutMs ?? 600_000) / 1000)} s`);
    if (output.exitCode === 127 || /git: (command )?not found/.test(output.stderr)) throw new RepositoryError(`${failed}: git is not installed in the sandbox`);
    return output;
  };
  const tail = (output: GitOutput) => {
    const lines = clean(output.stderr)
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('hint:'));
    const text = lines.slice(-2).join(' ').trim();
    return text ? ` (git: ${text.length > 400 ? `…${text.slice(-400)}` : text})` : '';
  };

  // An empty repository in the working directory (which may already hold the platform's own
  // `.agent-platform/` files, kept out of commits), pointing at the remote.
  const init = await git(
    [
      'set -e',
      'if [ -e .git ]; then echo "the working directory already holds a git repository" >&2; exit 3; fi',
      'git -c init.defaultBranch=main init -q',
      'git config remote.origin.url "$AGENT_PLATFORM_GIT_URL"',
      "git config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'",
      // An empty value first: helpers of the image's own config (a `store` that would write the
      // token to disk, say) are dropped for this host.
      'git config --add "credential.$AGENT_PLATFORM_GIT_ORIGIN.helper" ""',
      'git config --add "credential.$AGENT_PLATFORM_GIT_ORIGIN.helper" "$AGENT_PLATFORM_GIT_HELPER"',
      'git config user.name "$AGENT_PLATFORM_GIT_USER_NAME"',
      'git config user.email "$AGENT_PLATFORM_GIT_USER_EMAIL"',
      "printf '%s\\n' '/.agent-platform/' >> .git/info/exclude",
    ].join('\n'),
  );
  if (init.exitCode !== 0) throw new RepositoryError(`preparing the repository for ${remote.display} failed${tail(init)}`);

  const fetched = await git('git fetch -q origin');
  if (fetched.exitCode !== 0)
    throw new RepositoryError(`${failed}: ${fetchFailure(fetched.stderr, input.token !== null && remote.sendToken, provider, remote.origin)}${tail(fetched)}`);

  let checkout: string;
  let local: string | null;
  if (pullRef) {
    // Kept under the same name locally (`refs/pull/<n>/head`), out of the remote-tracking branches.
    const pulled = await git('git fetch -q origin "+$AGENT_PLATFORM_GIT_PULL_REF:$AGENT_PLATFORM_GIT_PULL_REF"');
    if (pulled.exitCode !== 0) {
      const missing = /couldn't find remote ref|no such remote ref|not our ref/i.test(pulled.stderr);
      throw new RepositoryError(`${failed}: ${missing ? `pull request #${pullRequest} not found` : 'fetching the pull request failed'}${tail(pulled)}`);
    }
    local = env.AGENT_PLATFORM_GIT_PULL_LOCAL as string;
    // The head on a local branch; with the head's branch named (and on the remote), a push updates the pull request.
    checkout = [
      'git checkout -q -B "$AGENT_PLATFORM_GIT_PULL_LOCAL" "$AGENT_PLATFORM_GIT_PULL_REF"',
      'if [ -n "$AGENT_PLATFORM_GIT_BRANCH" ] && git rev-parse -q --verify "refs/remotes/origin/$AGENT_PLATFORM_GIT_BRANCH" >/dev/null; then git branch -q --set-upstream-to="origin/$AGENT_PLATFORM_GIT_BRANCH" "$AGENT_PLATFORM_GIT_BRANCH"; fi',
    ].join('\n');
  } else {
    if (branch === null) {
      const head = await git('git ls-remote --symref origin HEAD');
      if (head.exitCode !== 0)
        throw new RepositoryError(`${failed}: ${fetchFailure(head.stderr, input.token !== null && remote.sendToken, provider, remote.origin)}${tail(head)}`);
      const named = /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(head.stdout)?.[1];
      if (!named) {
        const any = await git('git for-each-ref --count=1 --format="%(refname)" refs/remotes/origin');
        if (any.stdout.trim() === '') return { url: remote.url, branch: null, commit: null };
        throw new RepositoryError(`${failed}: the remote names no default branch; choose a branch`);
      }
      local = named;
      env.AGENT_PLATFORM_GIT_BRANCH = named;
    } else {
      local = branch;
    }
    checkout = [
      'if ! git rev-parse -q --verify "refs/remotes/origin/$AGENT_PLATFORM_GIT_BRANCH^{commit}" >/dev/null; then echo "no such branch" >&2; exit 4; fi',
      'git checkout -q -B "$AGENT_PLATFORM_GIT_BRANCH" --track "origin/$AGENT_PLATFORM_GIT_BRANCH"',
    ].join('\n');
  }
  const checkedOut = await git(`set -e\n${checkout}\ngit rev-parse HEAD`);
  if (checkedOut.exitCode === 4) throw new RepositoryError(`${failed}: branch ${local} not found`);
  if (checkedOut.exitCode !== 0) throw new RepositoryError(`${failed}: checking out ${local} failed${tail(checkedOut)}`);
  return { url: remote.url, branch: local, commit: checkedOut.stdout.trim().split('\n').at(-1) ?? null };
}

/** What a conversation or run works on. */
export interface RepositoryTarget {
  repository: string;
  /** A provider name (`github`, `gitlab`, …); default `github`. */
  provider?: string | null;
  branch?: string | null;
  pullRequest?: number | null;
}

/**
 * {@link prepareRepository} for an owner: their token and host for the target's provider, and
 * their git identity.
 */
export async function prepareOwnerRepository(
  runtime: SandboxRuntime,
  sandboxId: string,
  settings: AgentSettings,
  target: RepositoryTarget,
  signal?: AbortSignal,
): Promise<PreparedRepository> {
  const provider = providerTypeSchema.safeParse(target.provider || 'github');
  if (!provider.success) throw new RepositoryError(`unknown git provider "${String(target.provider).slice(0, 50)}"`);
  // A chat's token (Slack's) answers in its threads; it is never sent to a git remote.
  if (CHAT_PROVIDER_TYPES.includes(provider.data)) throw new RepositoryError(`${provider.data} is not a git provider: name the repository's own provider`);
  const entry = settings.providerTokens[provider.data];
  return prepareRepository(runtime, sandboxId, {
    repository: target.repository,
    provider: provider.data,
    token: entry?.token ?? null,
    host: entry?.host ?? null,
    branch: target.branch ?? null,
    pullRequest: target.pullRequest ?? null,
    gitUserName: settings.gitUserName,
    gitUserEmail: settings.gitUserEmail,
    ...(signal ? { signal } : {}),
  });
}

/**
 * The git host a target clones from and pushes to (`host` or `host:port`), for the sandbox's
 * egress allowlist; none when the target names no usable remote (its clone fails and says why).
 */
export function repositoryEgressHosts(settings: AgentSettings, target: RepositoryTarget | null): string[] {
  const provider = providerTypeSchema.safeParse(target?.provider || 'github');
  if (!target || !provider.success) return [];
  try {
    const entry = settings.providerTokens[provider.data];
    const remote = remoteOf({ repository: target.repository, host: entry?.host ?? null } as PrepareRepositoryInput, provider.data);
    return [new URL(remote.url).host];
  } catch {
    return [];
  }
}

/** What a failed `git fetch`/`ls-remote` means, in words. */
function fetchFailure(stderr: string, hadToken: boolean, provider: ProviderType, origin: string): string {
  if (/Authentication failed|could not read (Username|Password)|terminal prompts disabled|Access denied|error: 40[13]\b|HTTP Basic/i.test(stderr)) {
    return hadToken
      ? 'the token was refused or has no access to the repository'
      : `the repository needs credentials and no ${provider} token is stored for ${origin}`;
  }
  if (/not found|does not appear to be a git repository|error: 404\b/i.test(stderr)) return 'repository not found or the token has no access';
  if (/Could not resolve host|Failed to connect|Connection refused|Connection timed out|Network is unreachable|SSL/i.test(stderr))
    return `could not reach ${origin}`;
  return 'git fetch failed';
}
