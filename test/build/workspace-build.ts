/**
 * The packages' build, once per test run, for every build test that reads dist/ (exports.test.ts,
 * packed-install.test.ts). vitest runs test files at once, and each build empties dist/ first, so
 * two builds side by side would pull the files from under each other's checks: the first file to
 * ask builds, holding a lock directory; the others wait for it and reuse its result. "One run" is
 * the vitest process (the parent of a forked worker, or the process of a thread worker).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
