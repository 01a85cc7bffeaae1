/**
 * The packages' build, once per test run, for every build test that reads dist/ (exports.test.ts,
 * packed-install.test.ts). vitest runs test files at once, and each build empties dist/ first, so
 * two builds side by side would pull the files from under each other's checks: the first file to
 * ask builds, holding a lock directory; the others wait for it and reuse its result. "One run" is
 * the vitest process (the parent of a forked worker, or the process of a thread worker).
 *
 * CI builds the packages itself before `pnpm test` (`.ci/run`, beside `pnpm lint`, on the core that
 * typedoc leaves idle) and says so with `AGENT_PLATFORM_PACKAGES_BUILT=1`: then no file builds
 * again, and each checks that every package's dist/ is there and newer than everything its build
 * reads, so a stale dist/ fails loudly instead of being tested. `pnpm test` on its own builds.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { runProcess } from './run-process.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

export interface WorkspacePackage {
  dir: string;
  json: {
    name: string;
    version: string;
    exports?: Record<string, unknown>;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
  hasSrc: boolean;
}

/** Every package under packages/, and whether it has sources to build yet. */
export const packages: WorkspacePackage[] = readdirSync(path.join(root, 'packages'))
  .map((name) => path.join(root, 'packages', name))
  .filter((dir) => existsSync(path.join(dir, 'package.json')))
  .map((dir) => ({ dir, json: readJson(path.join(dir, 'package.json')), hasSrc: existsSync(path.join(dir, 'src/index.ts')) }));
export const buildable = packages.filter((p) => p.hasSrc);

/** `[command, leading args]` that run pnpm: the pnpm running us if any, else the pinned one via npx. */
export function pnpmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  if (execPath && path.basename(execPath).startsWith('pnpm')) {
    return /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath]] : [execPath, []];
  }
  const packageManager: string = readJson(path.join(root, 'package.json')).packageManager;
  return ['npx', ['-y', packageManager.split('+')[0]!]];
}

const stateDir = path.join(root, 'node_modules/.cache/agent-platform-build-tests');
const lockDir = path.join(stateDir, 'build.lock');
const resultFile = path.join(stateDir, 'build-result.json');
/** The vitest process this worker belongs to. */
const runId = String(isMainThread ? process.ppid : process.pid);

interface BuildResult {
  run: string;
  ok: boolean;
  output: string;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

let built: Promise<void> | undefined;

/** Builds every buildable package (`pnpm -r --filter ./packages/<each> build`), once per test run. */
export function buildWorkspacePackages(): Promise<void> {
  built ??= buildOnce();
  return built;
}

async function buildOnce(): Promise<void> {
  if (buildable.length === 0) return;
  if (process.env.AGENT_PLATFORM_PACKAGES_BUILT === '1') return checkPrebuilt();
  mkdirSync(stateDir, { recursive: true });
  for (;;) {
    const previous = readResult();
    if (previous?.run === runId) {
      if (previous.ok) return;
      throw new Error(`build failed (in another test file of this run):\n${previous.output}`);
    }
    try {
      mkdirSync(lockDir);
    } catch {
      // Someone is building: wait for them, or take over from a holder that died.
      const holder = Number(readFileSafe(path.join(lockDir, 'pid')));
      if (holder && !isAlive(holder)) rmSync(lockDir, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    try {
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      // Built by another file of this run between our look and our lock: done.
      if (readResult()?.run === runId) continue;
      const [command, args] = pnpmCommand();
      const filters = buildable.flatMap((p) => ['--filter', `./${path.relative(root, p.dir)}`]);
      // append-only: plain prefixed output, and overrides an inherited `pnpm --silent` (npm_config_reporter).
      const build = await runProcess(command, [...args, '--reporter=append-only', '-r', ...filters, 'build'], { cwd: root });
      const ok = build.status === 0;
      const output = ok ? '' : `${build.error ?? `exit ${build.status}`}\n${build.stdout}\n${build.stderr}`;
      writeFileSync(resultFile, JSON.stringify({ run: runId, ok, output } satisfies BuildResult));
      if (!ok) throw new Error(`build failed (${output}`);
      return;
    } finally {
      rmSync(lockDir, { recursive: true, force: true });
    }
  }
}

function readResult(): BuildResult | undefined {
  const text = readFileSafe(resultFile);
  return text ? (JSON.parse(text) as BuildResult) : undefined;
}

function readFileSafe(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** What a package's build reads (besides node_modules): its sources, its own config files and the shared ones. */
const sharedBuildInputs = ['tsup.base.ts', 'tsconfig.base.json', 'pnpm-lock.yaml'].map((file) => path.join(root, file));

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(dir, file))
    .filter((file) => statSync(file).isFile());
}

/** With AGENT_PLATFORM_PACKAGES_BUILT=1: each package's dist/ exists and was written after every input of its build. */
function checkPrebuilt(): void {
  const mtime = (file: string) => statSync(file).mtimeMs;
  const stale: string[] = [];
  for (const pkg of buildable) {
    const name = path.relative(root, pkg.dir);
    const built = files(path.join(pkg.dir, 'dist'));
    if (built.length === 0) {
      stale.push(`${name}: no dist/`);
      continue;
    }
    const ownConfig = ['package.json', 'tsconfig.json', 'tsup.config.ts'].map((file) => path.join(pkg.dir, file)).filter((file) => existsSync(file));
    const inputs = [...sharedBuildInputs, ...ownConfig, ...files(path.join(pkg.dir, 'src')), ...files(path.join(pkg.dir, 'scripts'))];
    const oldestOutput = Math.min(...built.map(mtime));
    const changed = inputs.find((file) => mtime(file) > oldestOutput);
    if (changed) stale.push(`${name}: ${path.relative(root, changed)} changed after dist/ was built`);
  }
  if (stale.length > 0) {
    throw new Error(`AGENT_PLATFORM_PACKAGES_BUILT=1 says the packages were built before the tests, but:\n${stale.join('\n')}\n(unset it to build here)`);
  }
}
