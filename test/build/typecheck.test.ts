/**
 * The whole workspace type-checks (sources, tests, examples), as `pnpm typecheck` does. What an
 * app sees of the client, its built declarations, is type-checked in `exports.test.ts`, after
 * the build that file makes (vitest may run the two files at once, and the build empties dist/).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runProcess } from './run-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('type-checks with tsc --noEmit', async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = await runProcess(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: root });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});
