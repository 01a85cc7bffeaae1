/**
 * The README's "Embedding the engine" program, for the build tests that type-check and run it:
 * against the workspace's sources (test/build/readme-embedding.test.ts) and against the packed
 * packages installed with npm (test/build/packed-install.test.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MARKER = '<!-- readme-embedding:';

/** The first ```ts block after the README's `<!-- readme-embedding: ... -->` marker. */
export function readmeEmbeddingSnippet(readme = readFileSync(path.join(root, 'README.md'), 'utf8')): string {
  const start = readme.indexOf(MARKER);
  if (start < 0) throw new Error(`README.md has no ${MARKER} marker`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block?.[1]) throw new Error('no ```ts block after the marker');
  return block[1];
}

/**
 * Checks a started embedding program (given `PORT=port`): it prints the `curl` line with an API
 * key and its run's URL, the run it dispatched completes, and the command agent's output is
 * among the conversation's events. Kills the child at the end.
 */
export async function expectEmbeddingRunCompletes(child: ChildProcess, port: number): Promise<void> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const printed = await waitFor(
      () => /curl -H 'Authorization: Bearer (\S+)' (http:\/\/\S+)/.exec(output),
      () => output,
    );
    const [, key, url] = printed;
    const get = async (target: string) => (await fetch(target, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;
    const run = await waitFor(
      async () => {
        const current = await get(url!);
        return current.status === 'COMPLETED' || current.status === 'FAILED' ? current : null;
      },
      () => output,
    );
    expect(run).toMatchObject({ status: 'COMPLETED' });
    const events = await get(`http://localhost:${port}/api/v1/app-conversations/${run.conversation_id}/events`);
    expect(events.items.map((event: { message: string | null }) => event.message)).toContain('Working on: Triage the issue');
  } finally {
    child.kill('SIGKILL');
  }
}

/** Polls `probe` every 200 ms until it gives a value; fails after 60 s with `context()`. */
export async function waitFor<T>(probe: () => T | null | Promise<T | null>, context: () => string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
