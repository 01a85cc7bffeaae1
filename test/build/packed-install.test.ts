/**
 * The packages as an app installs them: built (`workspace-build.ts`, shared with exports.test.ts),
 * packed with `pnpm pack` (which turns `workspace:` ranges into versions) and installed with
 * `npm install <tarballs>` into projects outside the workspace (under the OS temp directory),
 * where nothing of the workspace can be found by walking up.
 *
 * - A server host: the README's embedding program (the same block readme-embedding.test.ts runs
 *   against the sources) type-checks with `tsc --strict --module NodeNext`, compiles and runs
 *   against the installed packages and fastify, and its run completes.
 * - A client-only host: the client's tarball and core's (its one workspace dependency), made and
 *   named by `pnpm pack:client` (scripts/pack-client.mjs) as the client's docs say, and nothing
 *   else of ours. None of the server is installed (no http, console, fastify, express,
 *   ws); an ES module and a CommonJS file load the client in plain `node` and call a local HTTP
 *   server with it; the app in fixtures/client-consumer.ts type-checks with the route table's
 *   exact types (ESM and CommonJS; browser and Node settings), from the client's dist/.
 *
 * Third-party packages come from the npm registry (npm's cache makes a second run quick).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEmbeddingRunCompletes, freePort, readmeEmbeddingSnippet } from '../support/readme-embedding.js';
import { runProcess } from './run-process.js';
import { buildWorkspacePackages, packages, pnpmCommand, root, type WorkspacePackage } from './workspace-build.js';

const SERVER_PACKAGES = ['@agent-platform/http', '@agent-platform/console', 'fastify', 'express', 'ws'];
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const rootJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const byName = new Map(packages.map((p) => [p.json.name, p]));

/** A child's environment without what the test runner or pnpm set: no NODE_OPTIONS, no npm_* settings. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !/^npm_/i.test(key)));
  return { ...env, ...extra };
}

/** The workspace packages `names` need at run time: themselves, their dependencies and required peers, transitively. */
function workspaceClosure(names: string[]): WorkspacePackage[] {
  const found = new Map<string, WorkspacePackage>();
  const visit = (name: string) => {
    const pkg = byName.get(name);
    if (!pkg || found.has(name)) return;
    found.set(name, pkg);
    const optional = pkg.json.peerDependenciesMeta ?? {};
    const peers = Object.keys(pkg.json.peerDependencies ?? {}).filter((peer) => !optional[peer]?.optional);
    for (const dep of [...Object.keys(pkg.json.dependencies ?? {}), ...peers]) visit(dep);
  };
  names.forEach(visit);
  return [...found.values()];
}

/** `@scope/name/sub` → `@scope/name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The bare packages a program imports. */
const importedPackages = (code: string) => [
  ...new Set([...code.matchAll(/\bfrom\s+'([^'.][^']*)'/g)].map(([, specifier]) => packageOf(specifier!)).filter((name) => !name.startsWith('node:'))),
];

/** The range the workspace uses for a third-party package: a package's peer or dependency range, else the root's. */
function workspaceRange(name: string): string {
  for (const pkg of packages) {
    const range = pkg.json.peerDependencies?.[name] ?? pkg.json.dependencies?.[name];
    if (range) return range;
  }
  const range = rootJson.devDependencies?.[name] ?? rootJson.dependencies?.[name];
  if (!range) throw new Error(`no range for ${name} in the workspace`);
  return range;
}

async function run(command: string, args: string[], cwd: string, env = plainEnv()) {
  const result = await runProcess(command, args, { cwd, env });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${result.error ?? `exit ${result.status}`}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A project under the temp directory with `dependencies` installed by npm. */
async function npmHost(prefix: string, dependencies: string[]): Promise<string> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir).toLowerCase(), private: true, type: 'module' }, null, 2));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...dependencies], dir);
  return dir;
}

const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'agent-platform-packed-')));
const tarballs = new Map<string, string>();
const snippet = readmeEmbeddingSnippet();
const snippetImports = importedPackages(snippet);
let serverHost: string;
let clientHost: string;

beforeAll(async () => {
  await buildWorkspacePackages();
  const needed = workspaceClosure([...snippetImports, '@agent-platform/client']);
  const destination = path.join(work, 'tarballs');
  mkdirSync(destination);
  const [pnpm, pnpmArgs] = pnpmCommand();
  await Promise.all(
    needed.map(async (pkg) => {
      await run(pnpm, [...pnpmArgs, 'pack', '--pack-destination', destination], pkg.dir, process.env);
      const file = path.join(destination, `${pkg.json.name.replace(/^@/, '').replace('/', '-')}-${pkg.json.version}.tgz`);
      if (!existsSync(file)) throw new Error(`pnpm pack left no ${file} (found ${readdirSync(destination).join(', ')})`);
      tarballs.set(pkg.json.name, file);
    }),
  );
  const ours = (names: string[]) => workspaceClosure(names).map((pkg) => tarballs.get(pkg.json.name)!);
  // The client-only host installs what `pnpm pack:client` makes and prints, as the client's docs say.
  const packed = await run(
    process.execPath,
    [path.join(root, 'scripts/pack-client.mjs'), '--out', path.join(work, 'pack-client'), '--no-build'],
    root,
    process.env,
  );
  const installLine = /^npm install (.+)$/m.exec(packed.stdout)?.[1];
  if (!installLine) throw new Error(`pack-client printed no npm install line:\n${packed.stdout}\n${packed.stderr}`);
  const clientTarballs = installLine.split(' ');
  const thirdParty = snippetImports.filter((name) => !byName.has(name)).map((name) => `${name}@${workspaceRange(name)}`);
  [serverHost, clientHost] = await Promise.all([
    npmHost('agent-platform-server-host-', [
      ...ours(snippetImports.filter((name) => byName.has(name))),
      ...thirdParty,
      `@types/node@${workspaceRange('@types/node')}`,
    ]),
    npmHost('agent-platform-client-host-', clientTarballs),
  ]);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));
afterAll(() => {
  for (const dir of [serverHost, clientHost]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a server host: the README’s embedding program, on the installed packages', () => {
  it('type-checks with tsc --strict (NodeNext), compiles, and runs: the run it dispatches completes', async () => {
    writeFileSync(path.join(serverHost, 'embed.ts'), snippet);
    // Without skipLibCheck: every declaration the app reaches is checked, @ai-sdk/provider's too
    // (it imports `json-schema`'s types, which @agent-platform/agent installs for it).
    const args = ['--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--types', 'node', '--outDir', 'out', 'embed.ts'];
    const result = await runProcess(process.execPath, [tsc, ...args], { cwd: serverHost, env: plainEnv() });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);

    const port = await freePort();
    const child = spawn(process.execPath, ['out/embed.js'], { cwd: serverHost, env: plainEnv({ PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
    await expectEmbeddingRunCompletes(child, port);
  }, 120_000);
});

describe('a client-only host: npm install of the client (and core, its dependency)', () => {
  it('installs none of the server: no http, console, fastify, express or ws anywhere in the tree', async () => {
    for (const name of SERVER_PACKAGES) expect(existsSync(path.join(clientHost, 'node_modules', name)), name).toBe(false);
    for (const name of ['@agent-platform/client', '@agent-platform/core', 'ky'])
      expect(existsSync(path.join(clientHost, 'node_modules', name)), name).toBe(true);
    const tree = await run('npm', ['ls', '--all', '--json'], clientHost);
    const names = new Set<string>();
    const walk = (deps: Record<string, { dependencies?: Record<string, unknown> }> = {}) => {
      for (const [name, node] of Object.entries(deps)) {
        names.add(name);
        walk(node.dependencies as never);
      }
    };
    walk(JSON.parse(tree.stdout).dependencies);
    expect([...names].filter((name) => SERVER_PACKAGES.includes(name))).toEqual([]);
    expect([...names].filter((name) => name.startsWith('@agent-platform/')).sort()).toEqual(['@agent-platform/client', '@agent-platform/core']);
    console.log(`client-only host, npm ls --all:\n${(await run('npm', ['ls', '--all'], clientHost)).stdout}`);
  });

  describe('loads in plain node and calls a server', () => {
    let server: Server;
    let baseUrl: string;
    const requests: string[] = [];
    beforeAll(async () => {
      server = createServer((request: IncomingMessage, response) => {
        requests.push(`${request.method} ${request.url} ${request.headers.authorization}`);
        const missing = request.url?.endsWith('/auto_missing');
        response.writeHead(missing ? 404 : 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(missing ? { detail: 'Automation not found' } : { id: 'auto_1', name: 'triage' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const body = (load: string) => `${load}
const client = createClient({ baseUrl: process.env.BASE_URL, apiKey: 'host-key', retry: 0 });
async function main() {
  const automation = await client.automations.get('auto_1');
  const code = await client.automations.get('auto_missing').then(() => 'none', (error) => (isAgentPlatformError(error) ? error.code : String(error)));
  console.log(JSON.stringify({ automation, code }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;
    const programs = {
      'an ES module (import)': ['app.mjs', body("import { createClient, isAgentPlatformError } from '@agent-platform/client';")],
      'a CommonJS file (require)': ['app.cjs', body("const { createClient, isAgentPlatformError } = require('@agent-platform/client');")],
    } as const;

    it.each(Object.entries(programs))('%s', async (_, [file, code]) => {
      writeFileSync(path.join(clientHost, file), code);
      requests.length = 0;
      const result = await run(process.execPath, [file], clientHost, plainEnv({ BASE_URL: baseUrl }));
      expect(JSON.parse(result.stdout)).toEqual({ automation: { id: 'auto_1', name: 'triage' }, code: 'NOT_FOUND' });
      expect(requests).toEqual(['GET /api/automation/v1/auto_1 Bearer host-key', 'GET /api/automation/v1/auto_missing Bearer host-key']);
    });
  });

  /** The app's settings: a browser app (DOM, no Node types) and a Node app (Node types, declarations checked too). */
  const consumerTsconfigs = {
    'a browser app (DOM, no Node types)': { lib: ['ES2022', 'DOM'], types: [], skipLibCheck: true },
    'a Node app (Node types, declarations checked too)': {
      lib: ['ES2022'],
      types: ['node'],
      typeRoots: [path.join(root, 'node_modules/@types')],
      skipLibCheck: false,
    },
  };
  it.each(Object.entries(consumerTsconfigs))('type-checks in %s, as ESM and as CommonJS, with the route table’s exact types', async (name, options) => {
    const project = path.join(clientHost, name.includes('browser') ? 'browser-app' : 'node-app');
    mkdirSync(project);
    const app = readFileSync(path.join(root, 'test/build/fixtures/client-consumer.ts'), 'utf8');
    writeFileSync(path.join(project, 'app.ts'), app);
    writeFileSync(path.join(project, 'app-cjs.cts'), app);
    const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, ...options };
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts', 'app-cjs.cts'] }));
    const result = await runProcess(process.execPath, [tsc, '-p', 'tsconfig.json', '--traceResolution'], { cwd: project, env: plainEnv() });
    const errors = result.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors).toEqual([]);
    expect(result.status).toBe(0);
    // The client's ESM and CommonJS declarations from its dist/, and no server package even looked for.
    const resolved = [...result.stdout.matchAll(/Module name '(@agent-platform\/client)' was successfully resolved to '([^']+)'/g)].map(
      ([, module, file]) => `${module} → ${path.relative(clientHost, file!)}`,
    );
    expect(new Set(resolved)).toEqual(
      new Set([
        '@agent-platform/client → node_modules/@agent-platform/client/dist/index.d.ts',
        '@agent-platform/client → node_modules/@agent-platform/client/dist/index.d.cts',
      ]),
    );
    const looked = [...result.stdout.matchAll(/======== Resolving module '([^']+)'/g)].map(([, module]) => packageOf(module!));
    expect(looked.filter((module) => SERVER_PACKAGES.includes(module))).toEqual([]);
  });
});
