/**
 * Build check for every publishable package under packages/: builds them with tsup, lints them
 * with publint, and loads every `exports` entry from dist/ the way a consumer would — `require()`
 * and `import()` in a plain `node` process, without the `agent-platform-source` condition.
 *
 * Packages and entries are discovered from the package.json files. A package without
 * src/index.ts yet is reported as a skipped test instead of failing the build.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from './run-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

interface Pkg {
  dir: string;
  json: { name: string; exports?: Record<string, unknown>; peerDependencies?: Record<string, string> };
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
 *
 * vitest refuses to load outside a vitest run, so for a package with a `vitest` peer dependency
 * (@agent-platform/testing) the child swaps `vitest` — and only it — for a stub of no-op
 * functions; everything else in the entry, including its other dependencies, loads for real.
 */
const loaderScript = `
import Module, { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
const [specs, stubVitest] = JSON.parse(process.argv[1]);
const require = createRequire(process.cwd() + '/package.json');
if (stubVitest) {
  const names = ['describe', 'it', 'test', 'suite', 'expect', 'assert', 'vi', 'vitest', 'beforeAll',
    'afterAll', 'beforeEach', 'afterEach', 'onTestFailed', 'onTestFinished', 'bench', 'inject',
    'expectTypeOf', 'assertType', 'createExpect', 'chai', 'should'];
  const stub = 'const f = () => {}; export default {};' + names.map((n) => 'export const ' + n + ' = f;').join('');
  const stubUrl = 'data:text/javascript,' + encodeURIComponent(stub);
  const hooks = 'export async function resolve(s, c, next) { return s === "vitest" ? { url: '
    + JSON.stringify(stubUrl) + ', shortCircuit: true } : next(s, c); }';
  register('data:text/javascript,' + encodeURIComponent(hooks));
  const vitestCjs = createRequire(require.resolve('vitest/package.json')).resolve('vitest');
  const mod = new Module(vitestCjs);
  mod.exports = Object.fromEntries(names.map((n) => [n, () => {}]));
  mod.loaded = true;
  require.cache[vitestCjs] = mod;
}
const out = {};
for (const spec of specs) {
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

async function loadInPlainNode(pkg: Pkg): Promise<LoadResult> {
  const specs = exportEntries(pkg).map(([subpath]) => path.posix.join(pkg.json.name, subpath));
  const stubVitest = 'vitest' in (pkg.json.peerDependencies ?? {});
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  const args = ['--input-type=module', '-e', loaderScript, JSON.stringify([specs, stubVitest])];
  const child = await runProcess(process.execPath, args, { cwd: pkg.dir, env });
  if (child.status !== 0) throw new Error(`loader exited ${child.status}:\n${child.stderr}`);
  return JSON.parse(child.stdout);
}

const builtins = new Set(builtinModules);
const isBarePackage = (specifier: string) => !builtins.has(specifier.split('/')[0]!);

/** A package (`name` or `@scope/name`, maybe with a subpath) whose `require` resolution is an ES module. */
function isEsmOnly(fromDir: string, specifier: string): boolean {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  // Found the way Node looks: node_modules folders upwards (`require.resolve('x/package.json')`
  // fails for packages whose `exports` do not list it, ky among them).
  let manifestFile: string | undefined;
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) {
      manifestFile = candidate;
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  if (!manifestFile) return false; // not installed here (an optional peer, say): loading it fails elsewhere
  const manifest: { type?: string; exports?: unknown; main?: string } = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const targets = JSON.stringify(manifest.exports ?? manifest.main ?? './index.js');
  if (targets.includes('"require"') || /\.cjs"/.test(targets)) return false;
  if (manifest.type === 'module') return true;
  return /\.mjs"/.test(targets) && !/\.js"/.test(targets);
}

beforeAll(async () => {
  if (buildable.length === 0) return;
  const [command, args] = pnpmCommand();
  const filters = buildable.flatMap((p) => ['--filter', `./${path.relative(root, p.dir)}`]);
  // append-only: plain prefixed output, and overrides an inherited `pnpm --silent` (npm_config_reporter).
  const build = await runProcess(command, [...args, '--reporter=append-only', '-r', ...filters, 'build'], { cwd: root });
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

    it('its CommonJS build requires no ESM-only package (require(esm) needs Node 20.19; engines says 20)', () => {
      const cjsFiles = readdirSync(path.join(pkg.dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.cjs'));
      const esmOnly: string[] = [];
      for (const file of cjsFiles) {
        const code = readFileSync(path.join(pkg.dir, 'dist', file), 'utf8');
        for (const [, specifier] of code.matchAll(/require\("([^"./][^"]*)"\)/g)) {
          if (specifier!.startsWith('node:') || !isBarePackage(specifier!)) continue;
          if (isEsmOnly(pkg.dir, specifier!)) esmOnly.push(`${file}: require("${specifier}")`);
        }
      }
      expect(esmOnly).toEqual([]);
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
      beforeAll(async () => {
        loaded = await loadInPlainNode(pkg);
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
