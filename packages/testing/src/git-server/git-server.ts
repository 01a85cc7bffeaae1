/**
 * A real git smart-HTTP server for tests: `git http-backend` (CGI) behind a `node:http` server on
 * 127.0.0.1, over bare repositories in a temporary directory. It checks credentials the way
 * GitHub does — HTTP Basic with the username `x-access-token` and the token as the password,
 * otherwise 401 with `WWW-Authenticate` — so clients go through their credential helpers.
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Files of a commit: path (relative, `/`-separated) → content. */
export type GitFiles = Record<string, string>;

export interface GitRepositorySetup {
  /** The first commit, on `main`. Default: a `README.md`. */
  files?: GitFiles;
  /** Branches made from `main`, each with one more commit changing these files. */
  branches?: Record<string, GitFiles>;
  /**
   * Pull requests: each a commit on top of `main` changing these files, reachable only as
   * `refs/pull/<n>/head` (as GitHub keeps them), unless `branch` also names it a branch.
   */
  pullRequests?: Record<number, { files: GitFiles; branch?: string }>;
}

export interface GitServerOptions {
  /** The token every request must carry (Basic, username `x-access-token`). Absent: no auth. */
  token?: string;
  /** The username Basic auth expects. Default `x-access-token`. */
  username?: string;
  /** Each request waits this long before it is answered (to watch a clone under way). Default 0. */
  latencyMs?: number;
}

export interface RecordedGitRequest {
  method: string;
  /** Path and query, as requested. */
  url: string;
  /** The Basic-auth username sent, if any. */
  user: string | null;
  status: number;
}

export interface GitServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `127.0.0.1:<port>`, as a provider token's `host` would name it. */
  host: string;
  /** Every request answered, in order. */
  requests: RecordedGitRequest[];
  /** Creates a bare repository `name` (e.g. `acme/app`); resolves to its clone URL (`…/acme/app.git`). */
  createRepository(name: string, setup?: GitRepositorySetup): Promise<string>;
  /** The repository's refs: full ref name → commit id. */
  refs(name: string): Promise<Record<string, string>>;
  /** A file's content at a ref (`main`, `refs/heads/x`, a commit id), or `null` when absent. */
  readFile(name: string, ref: string, path: string): Promise<string | null>;
  /** The bare repository's directory on this machine. */
  pathOf(name: string): string;
  close(): Promise<void>;
}

interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** git with no system or user configuration leaking in from the machine running the tests. */
function gitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_')) env[name] = value;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.test',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.test',
  };
}

function git(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }));
  });
}

async function mustGit(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

const NAME = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

function basicUser(req: IncomingMessage): { user: string; password: string } | null {
  const header = req.headers.authorization;
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Splits a CGI response into its status, headers and the start of its body. */
function parseCgiHead(head: Buffer): { status: number; headers: [string, string][] } {
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of head.toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { status, headers };
}

function headerEnd(buffer: Buffer): { at: number; length: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return null;
}

/**
 * Starts the server.
 *
 * @example
 * ```ts
 * const git = await startGitServer({ token: 'ghp_test' });
 * const url = await git.createRepository('acme/app', {
 *   files: { 'README.md': '# app\n' },
 *   branches: { 'feature/x': { 'x.txt': 'x\n' } },
 *   pullRequests: { 1: { files: { 'fix.txt': 'fix\n' } } },
 * });
 * // … clone `url` with the token, push a branch, then:
 * expect(Object.keys(await git.refs('acme/app'))).toContain('refs/heads/agent/fix');
 * await git.close();
 * ```
 */
export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'agent-platform-git-'));
  const home = join(root, '.home');
  const repos = join(root, 'repos');
  await mkdir(home, { recursive: true });
  await mkdir(repos, { recursive: true });
  const env = gitEnv(home);
  const username = options.username ?? 'x-access-token';
  const requests: RecordedGitRequest[] = [];

  const answer = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const credentials = basicUser(req);
    const record = (status: number) => requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', user: credentials?.user ?? null, status });
    if (options.token !== undefined && (credentials?.user !== username || credentials.password !== options.token)) {
      record(401);
      req.resume();
      return answer(res, 401, 'Authentication required\n', { 'www-authenticate': 'Basic realm="git"' });
    }
    const cgiEnv: NodeJS.ProcessEnv = {
      ...env,
      GIT_PROJECT_ROOT: repos,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      // http-backend serves pushes only to an authenticated user.
      ...(credentials ? { REMOTE_USER: credentials.user } : {}),
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    };
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') cgiEnv[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = value;
    }
    const child = spawn('git', ['http-backend'], { env: cgiEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    req.pipe(child.stdin);
    child.stdin.on('error', () => {});
    let head: Buffer = Buffer.alloc(0);
    let started = false;
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      if (started) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = headerEnd(head);
      if (!end) return;
      const parsed = parseCgiHead(head.subarray(0, end.at));
      started = true;
      record(parsed.status);
      res.writeHead(parsed.status, parsed.headers);
      const rest = head.subarray(end.at + end.length);
      if (rest.length > 0) res.write(rest);
    });
    child.on('error', (error) => {
      if (!started) {
        started = true;
        record(500);
        answer(res, 500, `git http-backend failed: ${error.message}\n`);
      }
    });
    child.on('close', () => {
      if (!started) {
        started = true;
        record(500);
        return answer(res, 500, `git http-backend said nothing: ${Buffer.concat(stderr).toString('utf8')}\n`);
      }
      res.end();
    });
  };

  const server = createServer((req, res) => {
    if (options.latencyMs) setTimeout(() => handle(req, res), options.latencyMs);
    else handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;

  const pathOf = (name: string) => {
    if (!NAME.test(name) || name.split('/').some((part) => part === '.' || part === '..')) throw new Error(`bad repository name: ${name}`);
    return join(repos, `${name.replace(/\.git$/, '')}.git`);
  };

  const commit = async (work: string, files: GitFiles, message: string) => {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), content);
    }
    await mustGit(['add', '-A'], { cwd: work, env });
    await mustGit(['commit', '-q', '--allow-empty', '-m', message], { cwd: work, env });
  };

  return {
    url: base,
    host: `127.0.0.1:${port}`,
    requests,
    pathOf,
    async createRepository(name, setup = {}) {
      const bare = pathOf(name);
      const work = await mkdtemp(join(root, 'work-'));
      try {
        await mkdir(dirname(bare), { recursive: true });
        await mustGit(['init', '-q', '--bare', '-b', 'main', bare], { cwd: root, env });
        await mustGit(['init', '-q', '-b', 'main', work], { cwd: root, env });
        await commit(work, setup.files ?? { 'README.md': `# ${name}\n` }, 'initial commit');
        for (const [branch, files] of Object.entries(setup.branches ?? {})) {
          await mustGit(['checkout', '-q', '-b', branch, 'main'], { cwd: work, env });
          await commit(work, files, `work on ${branch}`);
        }
        for (const [number, pull] of Object.entries(setup.pullRequests ?? {})) {
          await mustGit(['checkout', '-q', '--detach', 'main'], { cwd: work, env });
          await commit(work, pull.files, `pull request #${number}`);
          await mustGit(['update-ref', `refs/pull/${number}/head`, 'HEAD'], { cwd: work, env });
          if (pull.branch) await mustGit(['branch', pull.branch, 'HEAD'], { cwd: work, env });
        }
        await mustGit(['checkout', '-q', 'main'], { cwd: work, env });
        await mustGit(['push', '-q', '--mirror', bare], { cwd: work, env });
      } finally {
        await rm(work, { recursive: true, force: true });
      }
      return `${base}/${name.replace(/\.git$/, '')}.git`;
    },
    async refs(name) {
      const out = await mustGit(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: pathOf(name), env });
      const refs: Record<string, string> = {};
      for (const line of out.split('\n')) {
        const [id, ref] = line.split(' ');
        if (id && ref) refs[ref] = id;
      }
      return refs;
    },
    async readFile(name, ref, path) {
      const result = await git(['show', `${ref}:${path}`], { cwd: pathOf(name), env });
      return result.code === 0 ? result.stdout : null;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await rm(root, { recursive: true, force: true });
    },
  };
}
