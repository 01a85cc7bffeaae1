/**
 * The README's "Embedding the engine" program, as a reader copies it: type-checked, then run. It
 * must start the engine with a runtime and an agent, serve the API, and the run it dispatches
 * must complete with the agent's output, fetched with the key and the command line it prints.
 *
 * The block is written into a directory inside examples/server, whose dependencies (fastify,
 * @agent-platform/http, agent, sandbox-process, storage-memory) are the ones it imports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { runProcess } from './run-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MARKER = '<!-- readme-embedding:';

/** The first ```ts block after the marker comment. */
function embeddingSnippet(readme: string): string {
  const start = readme.indexOf(MARKER);
  if (start < 0) throw new Error(`README.md has no ${MARKER} marker`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block?.[1]) throw new Error('no ```ts block after the marker');
  return block[1];
}

const dir = mkdtempSync(path.join(root, 'examples/server/.readme-embedding-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const snippet = embeddingSnippet(readFileSync(path.join(root, 'README.md'), 'utf8'));
writeFileSync(path.join(dir, 'embed.ts'), snippet);

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
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const printed = await waitFor(() => /curl -H 'Authorization: Bearer (\S+)' (http:\/\/\S+)/.exec(output), () => output);
    const [, key, url] = printed;
    const get = async (target: string) => (await fetch(target, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;
    const run = await waitFor(async () => {
      const current = await get(url!);
      return current.status === 'COMPLETED' || current.status === 'FAILED' ? current : null;
    }, () => output);
    expect(run).toMatchObject({ status: 'COMPLETED' });
    const events = await get(`http://localhost:${port}/api/v1/app-conversations/${run.conversation_id}/events`);
    expect(events.items.map((event: { message: string | null }) => event.message)).toContain('Working on: Triage the issue');
  } finally {
    child.kill('SIGKILL');
  }
}, 90_000);

async function waitFor<T>(probe: () => T | null | Promise<T | null>, context: () => string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
