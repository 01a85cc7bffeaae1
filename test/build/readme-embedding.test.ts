/**
 * The README's "Embedding the engine" program, as a reader copies it: type-checked, then run. It
 * must start the engine with a runtime and an agent, serve the API, and the run it dispatches
 * must complete with the agent's output, fetched with the key and the command line it prints.
 *
 * Here against the workspace's sources, with no build: the block is written into a directory
 * inside examples/server, whose dependencies (fastify, @agent-platform/http, agent,
 * sandbox-process, storage-memory) are the ones it imports. packed-install.test.ts does the same
 * against the packed packages installed with npm, as a reader's app would get them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { expectEmbeddingRunCompletes, freePort, readmeEmbeddingSnippet } from '../support/readme-embedding.js';
import { runProcess } from './run-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const dir = mkdtempSync(path.join(root, 'examples/server/.readme-embedding-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'embed.ts'), readmeEmbeddingSnippet());

it('type-checks', async () => {
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../../tsconfig.base.json', compilerOptions: { noEmit: true }, files: ['embed.ts'] }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = await runProcess(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { cwd: dir });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});

it('runs agents: the run it dispatches completes with the command agent’s output', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', 'embed.ts'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await expectEmbeddingRunCompletes(child, port);
}, 90_000);
