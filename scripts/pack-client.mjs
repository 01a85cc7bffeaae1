#!/usr/bin/env node
// `pnpm pack:client`: the client and core (its one workspace dependency) as tarballs that npm
// installs anywhere, until the packages are published. Builds both (unless `--no-build`, or
// AGENT_PLATFORM_PACKAGES_BUILT=1 when a build just ran), packs them with `pnpm pack` (which turns
// `workspace:` ranges into versions) into `--out <dir>` (default `packed/`), and prints the one
// `npm install` line that installs them together — given together, npm takes core from its
// tarball rather than looking for it on the registry.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { out: { type: 'string', default: 'packed' }, 'no-build': { type: 'boolean', default: false } } });
const out = path.resolve(process.cwd(), values.out);
const PACKAGES = ['core', 'client'];

/** pnpm as this script was started with (`pnpm pack:client`), else through npx at the pinned version. */
function pnpm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const viaPnpm = execPath && path.basename(execPath).startsWith('pnpm');
  const packageManager = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager.split('+')[0];
  const [command, prefix] = viaPnpm ? (/\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath]] : [execPath, []]) : ['npx', ['-y', packageManager]];
  const result = spawnSync(command, [...prefix, ...args], { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(`pack-client: ${[command, ...prefix, ...args].join(' ')} failed in ${cwd}`);
    process.exit(result.status ?? 1);
  }
}

if (!values['no-build'] && process.env.AGENT_PLATFORM_PACKAGES_BUILT !== '1') {
  console.error('pack-client: building @agent-platform/core and @agent-platform/client');
  for (const name of PACKAGES) pnpm(['--silent', 'run', 'build'], path.join(root, 'packages', name));
}
mkdirSync(out, { recursive: true });
const tarballs = PACKAGES.map((name) => {
  const dir = path.join(root, 'packages', name);
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (!existsSync(path.join(dir, 'dist'))) {
    console.error(`pack-client: packages/${name}/dist is missing: run without --no-build`);
    process.exit(1);
  }
  pnpm(['--silent', 'pack', '--pack-destination', out], dir);
  const file = path.join(out, `agent-platform-${name}-${version}.tgz`);
  if (!existsSync(file)) {
    console.error(`pack-client: pnpm pack left no ${file}`);
    process.exit(1);
  }
  return file;
});
console.error('pack-client: install both in your project with:');
// The one line on stdout, so a script can take it: `$(node scripts/pack-client.mjs)`.
console.log(`npm install ${tarballs.join(' ')}`);
