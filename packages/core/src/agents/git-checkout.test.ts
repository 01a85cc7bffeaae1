import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { startGitServer, type GitServer } from '@agent-platform/testing/git-server';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import { prepareRepository, RepositoryError, type PrepareRepositoryInput } from './git-checkout.js';

const TOKEN = 'ghp_repository_test_token_7f3a';

let runtime: SandboxRuntime;
let git: GitServer;
let counter = 0;

beforeAll(async () => {
  runtime = createProcessRuntime();
  git = await startGitServer({ token: TOKEN });
  await git.createRepository('acme/app', {
    files: { 'README.md': '# app\n', 'src/index.ts': 'export {};\n' },
    branches: { 'feature/x': { 'x.txt': 'on feature/x\n' } },
    pullRequests: { 1: { files: { 'fix.txt': 'the fix\n' }, branch: 'fix/bug' }, 2: { files: { 'fork.txt': 'from a fork\n' } } },
  });
});
afterAll(async () => {
  await runtime?.close();
  await git?.close();
});

async function sandbox(env?: Record<string, string>): Promise<string> {
  const started = await runtime.start({
    sandboxId: `sbx-repo-${process.pid}-${++counter}`,
    specId: (await runtime.listSpecs())[0]!.id,
    ...(env ? { env } : {}),
  });
  return started.id;
}

async function sh(sandboxId: string, command: string, env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  let exitCode: number | null = null;
  for await (const event of runtime.exec(sandboxId, { command, env })) {
    if (event.type === 'stdout') stdout += event.data;
    else if (event.type === 'stderr') stderr += event.data;
    else exitCode = event.result.exitCode;
  }
  return { stdout, stderr, exitCode };
}

const input = (overrides: Partial<PrepareRepositoryInput> = {}): PrepareRepositoryInput => ({
  repository: `${git.url}/acme/app.git`,
  provider: 'github',
  token: TOKEN,
  host: git.host,
  branch: null,
  pullRequest: null,
  gitUserName: 'Alice Agent',
  gitUserEmail: 'alice@example.com',
  ...overrides,
});

async function failure(promise: Promise<unknown>): Promise<RepositoryError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RepositoryError);
  expect((error as Error).message).not.toContain(TOKEN);
  return error as RepositoryError;
}

describe('prepareRepository', () => {
  it('clones the default branch into the working directory, with the git identity set', async () => {
    const id = await sandbox();
    const prepared = await prepareRepository(runtime, id, input());
    const refs = await git.refs('acme/app');
    expect(prepared).toEqual({ url: `${git.url}/acme/app.git`, branch: 'main', commit: refs['refs/heads/main'] });
    expect((await sh(id, 'cat README.md src/index.ts')).stdout).toBe('# app\nexport {};\n');
    expect((await sh(id, 'git rev-parse --abbrev-ref HEAD; git rev-parse --abbrev-ref @{upstream}')).stdout).toBe('main\norigin/main\n');
    expect((await sh(id, 'git config user.name; git config user.email')).stdout).toBe('Alice Agent\nalice@example.com\n');
    expect((await sh(id, 'git status --porcelain')).stdout).toBe('');
    expect((await sh(id, 'git branch -r')).stdout).toContain('origin/feature/x');
  });

  it('takes owner/name on the token host (a base URL here)', async () => {
    const id = await sandbox();
    const prepared = await prepareRepository(runtime, id, input({ repository: 'acme/app', host: git.url }));
    expect(prepared.url).toBe(`${git.url}/acme/app.git`);
    expect((await sh(id, 'cat README.md')).stdout).toBe('# app\n');
  });

  it('checks out a branch', async () => {
    const id = await sandbox();
    const prepared = await prepareRepository(runtime, id, input({ branch: 'feature/x' }));
    expect(prepared.branch).toBe('feature/x');
    expect(prepared.commit).toBe((await git.refs('acme/app'))['refs/heads/feature/x']);
    expect((await sh(id, 'cat x.txt; git rev-parse --abbrev-ref HEAD')).stdout).toBe('on feature/x\nfeature/x\n');
  });

  it("checks out a pull request's head, on pr-<n> or on the head's branch tracking it", async () => {
    const fork = await sandbox();
    const prepared = await prepareRepository(runtime, fork, input({ pullRequest: 2 }));
    expect(prepared).toMatchObject({ branch: 'pr-2', commit: (await git.refs('acme/app'))['refs/pull/2/head'] });
    expect((await sh(fork, 'cat fork.txt; git rev-parse --abbrev-ref HEAD')).stdout).toBe('from a fork\npr-2\n');

    const same = await sandbox();
    expect((await prepareRepository(runtime, same, input({ pullRequest: 1, branch: 'fix/bug' }))).branch).toBe('fix/bug');
    expect((await sh(same, 'cat fix.txt; git rev-parse --abbrev-ref @{upstream}')).stdout).toBe('the fix\norigin/fix/bug\n');
  });

  it('keeps the platform files already in the working directory, out of git', async () => {
    const id = await sandbox();
    await sh(id, 'mkdir -p .agent-platform && echo "{}" > .agent-platform/event.json');
    await prepareRepository(runtime, id, input());
    expect((await sh(id, 'cat .agent-platform/event.json; git status --porcelain --ignored')).stdout).toBe('{}\n!! .agent-platform/\n');
  });

  it("keeps the token out of the config, the files and the remote URL, even with the image's own `store` helper", async () => {
    const id = await sandbox();
    await sh(id, 'git config --global credential.helper store');
    await prepareRepository(runtime, id, input());
    expect((await sh(id, 'git push -q origin HEAD:refs/heads/stored-check', { GITHUB_TOKEN: TOKEN })).exitCode).toBe(0);
    expect((await sh(id, 'ls -A "$HOME"')).stdout).not.toContain('.git-credentials');
    const found = await sh(id, `grep -rl "${TOKEN}" "$HOME" .; git config --get-regexp '.*'`);
    expect(found.stdout).not.toContain(TOKEN);
    expect(found.stdout).toContain(`remote.origin.url ${git.url}/acme/app.git`);
    expect(found.stdout).toContain(`credential.${git.url}.helper`);
  });

  it('pushes a new branch with the token in the environment, and not without it', async () => {
    const id = await sandbox();
    await prepareRepository(runtime, id, input());
    await sh(id, 'git checkout -q -b agent/fix && echo fixed > fix.txt && git add fix.txt && git commit -q -m "Fix it"');
    const without = await sh(id, 'GIT_TERMINAL_PROMPT=0 git push -q origin agent/fix');
    expect(without.exitCode).not.toBe(0);
    const pushed = await sh(id, 'git push -q origin agent/fix', { GITHUB_TOKEN: TOKEN });
    expect(pushed).toMatchObject({ exitCode: 0, stderr: '' });
    expect(await git.readFile('acme/app', 'refs/heads/agent/fix', 'fix.txt')).toBe('fixed\n');
    expect((await sh(id, 'git log -1 --format="%an <%ae>"')).stdout).toBe('Alice Agent <alice@example.com>\n');
  });

  it('fails clearly, without the token, for a wrong token', async () => {
    const error = await failure(prepareRepository(runtime, await sandbox(), input({ token: 'ghp_wrong_token_123' })));
    expect(error.message).toMatch(/^cloning http:\/\/127\.0\.0\.1:\d+\/acme\/app\.git failed: the token was refused or has no access to the repository/);
    expect(error.message).not.toContain('ghp_wrong_token_123');
  });

  it('fails clearly for a private repository and no token', async () => {
    const error = await failure(prepareRepository(runtime, await sandbox(), input({ token: null })));
    expect(error.message).toContain('the repository needs credentials and no github token is stored');
  });

  it('sends the token only to its own host', async () => {
    const error = await failure(prepareRepository(runtime, await sandbox(), input({ host: 'github.com' })));
    expect(error.message).toContain('needs credentials');
    expect(git.requests.at(-1)).toMatchObject({ user: null, status: 401 });
  });

  it('fails clearly for a missing repository, branch or pull request', async () => {
    expect((await failure(prepareRepository(runtime, await sandbox(), input({ repository: 'acme/missing', host: git.url })))).message).toMatch(
      /^cloning acme\/missing failed: repository not found or the token has no access \(git: .*not found/,
    );
    expect((await failure(prepareRepository(runtime, await sandbox(), input({ branch: 'feature/nope' })))).message).toMatch(
      /failed: branch feature\/nope not found$/,
    );
    expect((await failure(prepareRepository(runtime, await sandbox(), input({ pullRequest: 9 })))).message).toMatch(/failed: pull request #9 not found/);
  });

  it('refuses what it cannot use safely, before running anything', async () => {
    const id = await sandbox();
    expect((await failure(prepareRepository(runtime, id, input({ repository: 'http://example.com/acme/app.git' })))).message).toContain('plain http');
    expect((await failure(prepareRepository(runtime, id, input({ repository: `http://u:${TOKEN}@127.0.0.1/acme/app.git` })))).message).toContain(
      'must not contain credentials',
    );
    expect((await failure(prepareRepository(runtime, id, input({ repository: 'not a repo' })))).message).toContain('is not a repository');
    expect((await failure(prepareRepository(runtime, id, input({ branch: '--upload-pack=touch x' })))).message).toContain('is not a valid branch name');
    expect((await failure(prepareRepository(runtime, id, input({ provider: 'bitbucket', pullRequest: 1 })))).message).toContain('give the branch instead');
    expect((await sh(id, 'ls -A')).stdout).toBe('');
  });

  it('says so when git is not in the sandbox', async () => {
    const error = await failure(prepareRepository(runtime, await sandbox({ PATH: '/nonexistent' }), input()));
    expect(error.message).toContain('git is not installed in the sandbox');
  });

  it('refuses a working directory that already holds a repository', async () => {
    const id = await sandbox();
    await prepareRepository(runtime, id, input());
    expect((await failure(prepareRepository(runtime, id, input()))).message).toContain('already holds a git repository');
  });
});
