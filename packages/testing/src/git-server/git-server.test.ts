import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from './git-server.js';

const TOKEN = 'ghp_git_server_test_token';

/**
 * git on this machine with the token given by a credential helper reading the environment.
 * Asynchronous: the server answers from this same process.
 */
function git(cwd: string, args: string[], token: string | null): Promise<{ code: number; stdout: string; stderr: string }> {
  const helper = '!f() { test "$1" = get && echo username=x-access-token && echo "password=$TEST_GIT_TOKEN"; }; f';
  const env = { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', ...(token === null ? {} : { TEST_GIT_TOKEN: token }) };
  return new Promise((resolve) => {
    execFile('git', ['-c', 'credential.helper=', '-c', `credential.helper=${helper}`, ...args], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('startGitServer', () => {
  let server: GitServer;
  let dir: string;
  beforeAll(async () => {
    server = await startGitServer({ token: TOKEN });
    dir = await mkdtemp(join(tmpdir(), 'git-server-test-'));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a clone with the token, with its branches and pull request refs', async () => {
    const url = await server.createRepository('acme/app', {
      files: { 'README.md': '# app\n' },
      branches: { 'feature/x': { 'x.txt': 'x\n' } },
      pullRequests: { 1: { files: { 'fix.txt': 'fix\n' } } },
    });
    expect(url).toBe(`${server.url}/acme/app.git`);
    const refs = await server.refs('acme/app');
    expect(Object.keys(refs).sort()).toEqual(['refs/heads/feature/x', 'refs/heads/main', 'refs/pull/1/head']);
    expect(await server.readFile('acme/app', 'refs/pull/1/head', 'fix.txt')).toBe('fix\n');
    expect(await server.readFile('acme/app', 'main', 'fix.txt')).toBeNull();

    const clone = await git(dir, ['clone', '-q', url, 'app'], TOKEN);
    expect(clone.stderr).toBe('');
    expect(await readFile(join(dir, 'app', 'README.md'), 'utf8')).toBe('# app\n');
    expect(server.requests.some((request) => request.status === 401)).toBe(true);
    expect(server.requests.at(-1)).toMatchObject({ user: 'x-access-token', status: 200 });
  });

  it('refuses a wrong token and no token with 401', async () => {
    const url = await server.createRepository('acme/private');
    expect((await git(dir, ['clone', '-q', url, 'wrong'], 'ghp_wrong')).stderr).toContain('Authentication failed');
    expect((await git(dir, ['clone', '-q', url, 'none'], null)).code).not.toBe(0);
  });

  it('answers 404 for a repository that does not exist', async () => {
    expect((await git(dir, ['clone', '-q', `${server.url}/acme/missing.git`, 'missing'], TOKEN)).stderr).toMatch(/not found/i);
  });

  it('takes a push and shows it in refs', async () => {
    await server.createRepository('acme/push');
    const work = join(dir, 'push');
    expect((await git(dir, ['clone', '-q', `${server.url}/acme/push.git`, 'push'], TOKEN)).code).toBe(0);
    await git(work, ['checkout', '-q', '-b', 'agent/fix'], TOKEN);
    await git(work, ['-c', 'user.name=A', '-c', 'user.email=a@example.test', 'commit', '-q', '--allow-empty', '-m', 'fix'], TOKEN);
    const pushed = await git(work, ['push', '-q', 'origin', 'agent/fix'], TOKEN);
    expect(pushed.stderr).toBe('');
    expect(Object.keys(await server.refs('acme/push'))).toContain('refs/heads/agent/fix');
  });
});
