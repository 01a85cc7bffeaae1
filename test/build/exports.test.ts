/**
 * Build check for every publishable package under packages/: builds them with tsup, lints them
 * with publint, and loads every `exports` entry from dist/ the way a consumer would — `require()`
 * and `import()` in a plain `node` process, without the `agent-platform-source` condition. The
 * declaration files import only what the package depends on; the client's carry the server's
 * route table inlined, equal to http's. What an app gets by installing the packed packages with
 * npm is in packed-install.test.ts (the build is shared: `workspace-build.ts`).
 *
 * Packages and entries are discovered from the package.json files. A package without
 * src/index.ts yet is reported as a skipped test instead of failing the build.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleClientForBrowser } from '../support/client-browser-bundle.js';
import { runProcess } from './run-process.js';
import { buildWorkspacePackages, packages, root, type WorkspacePackage as Pkg } from './workspace-build.js';

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
/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The bare module specifiers a declaration file imports (`from '...'`, `import('...')`, `import '...'`), comments aside. */
function declarationImports(code: string): string[] {
  const found = new Set<string>();
  const withoutComments = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const [, specifier] of withoutComments.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
    if (!specifier!.startsWith('.') && !specifier!.startsWith('node:') && isBarePackage(specifier!)) found.add(specifier!);
  }
  return [...found];
}

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

beforeAll(() => buildWorkspacePackages());

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
        // Either quote: a build with shared chunks writes require('…').
        for (const [, , specifier] of code.matchAll(/require\((["'])([^"'./][^"']*)\1\)/g)) {
          if (specifier!.startsWith('node:') || !isBarePackage(specifier!)) continue;
          if (isEsmOnly(pkg.dir, specifier!)) esmOnly.push(`${file}: require("${specifier}")`);
        }
      }
      expect(esmOnly).toEqual([]);
    });

    it('its declaration files import only its own dependencies (what a consumer installs with it)', () => {
      const declared = new Set([pkg.json.name, ...Object.keys(pkg.json.dependencies ?? {}), ...Object.keys(pkg.json.peerDependencies ?? {})]);
      const undeclared: string[] = [];
      const files = readdirSync(path.join(pkg.dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) => /\.d\.[cm]?ts$/.test(file));
      for (const file of files) {
        for (const specifier of declarationImports(readFileSync(path.join(pkg.dir, 'dist', file), 'utf8'))) {
          if (!declared.has(packageName(specifier))) undeclared.push(`${file}: '${specifier}'`);
        }
      }
      expect(undeclared).toEqual([]);
    });

    it('ships the .d.ts and .d.cts files named in exports', () => {
      for (const [subpath, value] of exportEntries(pkg)) {
        const types = targets(value).filter((t) => /\.d\.[cm]?ts$/.test(t));
        expect(
          types.some((t) => t.endsWith('.d.ts')),
          `${subpath} names a .d.ts`,
        ).toBe(true);
        expect(
          types.some((t) => t.endsWith('.d.cts')),
          `${subpath} names a .d.cts`,
        ).toBe(true);
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

/**
 * The client's types come from the server's route table (`ApiRoutes` of @agent-platform/http,
 * imported as a type, a devDependency): its declarations must carry them, inlined by its build,
 * to an app that installs the client alone, and its code must carry nothing of the server.
 */
describe('@agent-platform/client, as an app gets it', () => {
  const clientDir = path.join(root, 'packages/client');

  it('its built code imports ky and core’s signature registry alone: a browser bundle of dist/ has no server (or engine) code', async () => {
    const bundle = await bundleClientForBrowser({ entry: 'packages/client/dist/index.js' });
    // Core's pure signature-scheme files (the registry the signer follows) and its lists of names come too, nothing else.
    const registry = /^packages\/core\/src\/signatures\/(schemes\/[a-z0-9-]+|registry|scheme-kit\/[a-z0-9-]+)\.ts$/;
    expect(bundle.inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    const foreign = bundle.inputs.filter(
      (input) =>
        input !== 'packages/client/dist/index.js' &&
        !registry.test(input) &&
        input !== 'packages/core/src/schemas/vocabulary.ts' &&
        !/node_modules\/(\.pnpm\/ky@[^/]+\/node_modules\/)?ky\//.test(input),
    );
    expect(foreign).toEqual([]);
    expect(bundle.inputs.some((input) => registry.test(input))).toBe(true);
    for (const file of ['index.js', 'index.cjs']) {
      const code = readFileSync(path.join(clientDir, 'dist', file), 'utf8');
      // Core's browser-safe entries (no Node built-in) are its only run-time imports: the signature
      // schemes, and the schemas' entry for the lists of names.
      expect(code, file).not.toMatch(/@agent-platform\/(http|core)['"]/);
      expect(code, file).toMatch(/@agent-platform\/core\/signature-schemes['"]/);
    }
  });

  it('its declarations inline the route table: no server package named, and the table equals http’s, endpoint by endpoint', async () => {
    const server = /^(@agent-platform\/(http|console)|fastify|express|ws)(\/|$)/;
    for (const file of ['index.d.ts', 'index.d.cts']) {
      const code = readFileSync(path.join(clientDir, 'dist', file), 'utf8');
      expect(
        declarationImports(code).filter((specifier) => server.test(specifier)),
        file,
      ).toEqual([]);
      expect(code, file).not.toMatch(/\/\/\/\s*<reference/);
      expect(code, file).toMatch(/^interface ApiRoutes \{$/m);
    }
    // A project with the client and http side by side (links to the packages, each resolving its
    // own dependencies): the inlined table and http's are the same type, key by key and field by
    // field, for the ESM and the CommonJS declarations.
    const project = mkdtempSync(path.join(tmpdir(), 'agent-platform-route-table-'));
    try {
      mkdirSync(path.join(project, 'node_modules/@agent-platform'), { recursive: true });
      for (const name of ['client', 'http']) symlinkSync(path.join(root, 'packages', name), path.join(project, 'node_modules/@agent-platform', name), 'dir');
      const check = `import type { ApiRoutes as Inlined } from '@agent-platform/client';
import type { ApiRoutes as Server } from '@agent-platform/http';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
export const sameKeys: Equal<keyof Inlined, keyof Server> = true;
export const sameEntries: { [K in keyof Server]: K extends keyof Inlined ? { [F in keyof Server[K] | keyof Inlined[K]]: Equal<Inlined[K][F & keyof Inlined[K]], Server[K][F & keyof Server[K]]> } : never } =
  null as unknown as { [K in keyof Server]: { [F in keyof Server[K]]: true } };
`;
      writeFileSync(path.join(project, 'check.ts'), check);
      writeFileSync(path.join(project, 'check-cjs.cts'), check);
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'route-table-check', private: true, type: 'module' }));
      const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] };
      writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts', 'check-cjs.cts'] }));
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const result = await runProcess(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
      expect(result.stdout + result.stderr).toBe('');
      expect(result.status).toBe(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
