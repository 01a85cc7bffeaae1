/**
 * Build check for every publishable package under packages/: builds them with tsup, lints them
 * with publint, and loads every `exports` entry from dist/ the way a consumer would — `require()`
 * and `import()` in a plain `node` process, without the `agent-platform-source` condition.
 *
 * Packages and entries are discovered from the package.json files. A package without
 * src/index.ts yet is reported as a skipped test instead of failing the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

interface Pkg {
  dir: string;
  json: { name: string; private?: boolean; exports?: Record<string, unknown> };
  hasSrc: boolean;
}

const packages: Pkg[] = readdirSync(path.join(root, 'packages'))
  .map((name) => path.join(root, 'packages', name))
  .filter((dir) => existsSync(path.join(dir, 'package.json')))
  .map((dir) => ({
    dir,
    json: readJson(path.join(dir, 'package.json')),
    hasSrc: existsSync(path.join(dir, 'src/index.ts')),
  }));
const buildable = packages.filter((p) => p.hasSrc);

/** `[command, leading args]` that run pnpm: the pnpm running us if any, else the pinned one via npx. */
function pnpmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  if (execPath && path.basename(execPath).startsWith('pnpm')) {
    return /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath]] : [execPath, []];
  }
  const packageManager: string = readJson(path.join(root, 'package.json')).packageManager;
  return ['npx', ['-y', packageManager.split('+')[0]!]];
}

/** Subpath entries of `exports`, excluding ./package.json. */
function exportEntries(pkg: Pkg): [string, unknown][] {
  return Object.entries(pkg.json.exports ?? {}).filter(([subpath]) => subpath !== './package.json');
}

/** Every file path string inside an exports entry, whatever the condition nesting. */
function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

/**
 * Runs in a plain `node` child (cwd = package dir, no NODE_OPTIONS, no custom conditions): loads
 * each specifier (the package's own name + subpath, resolved through its `exports` by
 * self-reference) with require() and import(), and reports the resolved file and export names.
 */
const loaderScript = `
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
const require = createRequire(process.cwd() + '/package.json');
const out = {};
for (const spec of JSON.parse(process.argv[1])) {
  const r = (out[spec] = {});
  try {
    r.require = { file: require.resolve(spec), keys: Object.keys(require(spec)) };
  } catch (e) { r.require = { error: String(e && e.stack || e) }; }
  try {
    const url = import.meta.resolve(spec);
    r.import = { file: fileURLToPath(url), keys: Object.keys(await import(url)) };
  } catch (e) { r.import = { error: String(e && e.stack || e) }; }
}
console.log(JSON.stringify(out));
`;

type LoadResult = Record<string, Record<'require' | 'import', { file?: string; keys?: string[]; error?: string }>>;

function loadInPlainNode(pkg: Pkg): LoadResult {
  const specs = exportEntries(pkg).map(([subpath]) => path.posix.join(pkg.json.name, subpath));
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', loaderScript, JSON.stringify(specs)], {
    cwd: pkg.dir,
    env,
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`loader exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout);
}

beforeAll(() => {
  if (buildable.length === 0) return;
  const [command, args] = pnpmCommand();
  const filters = buildable.flatMap((p) => ['--filter', `./${path.relative(root, p.dir)}`]);
  // append-only: plain prefixed output, and overrides an inherited `pnpm --silent` (npm_config_reporter).
  const build = spawnSync(command, [...args, '--reporter=append-only', '-r', ...filters, 'build'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    throw new Error(`build failed (${build.error ?? `exit ${build.status}`}):\n${build.stdout}\n${build.stderr}`);
  }
});

for (const pkg of packages) {
  describe(pkg.json.name, () => {
    if (!pkg.hasSrc) {
      it.skip(`skipped: ${path.relative(root, pkg.dir)}/src/index.ts does not exist yet`, () => {});
      return;
    }

    it('passes publint with no errors or warnings', async () => {
      const { messages, pkg: json } = await publint({ pkgDir: pkg.dir, level: 'warning', pack: 'npm' });
      const problems = messages.map((m) => `${m.type}: ${formatMessage(m, json, { color: false })}`);
      expect(problems).toEqual([]);
    });

    it('ships the .d.ts and .d.cts files named in exports', () => {
      for (const [subpath, value] of exportEntries(pkg)) {
        const types = targets(value).filter((t) => /\.d\.[cm]?ts$/.test(t));
        expect(types.some((t) => t.endsWith('.d.ts')), `${subpath} names a .d.ts`).toBe(true);
        expect(types.some((t) => t.endsWith('.d.cts')), `${subpath} names a .d.cts`).toBe(true);
        for (const t of types) expect(existsSync(path.join(pkg.dir, t)), `${subpath}: ${t} exists`).toBe(true);
      }
    });

    describe('loads from dist in plain node', () => {
      let loaded: LoadResult;
      beforeAll(() => {
        loaded = loadInPlainNode(pkg);
      });

      it.each(exportEntries(pkg).map(([subpath]) => subpath))('%s via require() and import()', (subpath) => {
        const spec = path.posix.join(pkg.json.name, subpath);
        for (const way of ['require', 'import'] as const) {
          const result = loaded[spec]![way];
          expect(result.error, `${way}('${spec}')`).toBeUndefined();
          expect(path.relative(pkg.dir, result.file!), `${way}('${spec}') resolves into dist/`).toMatch(/^dist\//);
          expect(result.keys!.length, `${way}('${spec}') has exports`).toBeGreaterThan(0);
        }
      });
    });
  });
}
