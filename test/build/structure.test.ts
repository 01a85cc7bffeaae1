/**
 * The shape of the code, as `scripts/check-structure.mjs` reads it from the imports: no cycle
 * between the folders of any package, and no production source file over 500 lines. Run here so
 * `pnpm test` fails on a change that breaks either, as CI does.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('code structure', () => {
  it('has no folder cycle and no production file over 500 lines', () => {
    const run = spawnSync(process.execPath, [path.join(root, 'scripts/check-structure.mjs')], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^check-structure: no folder cycle/);
  });

  it('finds a cycle and a long file when there is one', () => {
    const fixture = path.join(root, 'test/build/fixtures/structure');
    const run = spawnSync(process.execPath, [path.join(root, 'scripts/check-structure.mjs'), '--root', fixture], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('packages/tangled: folders import each other: a, b');
    expect(run.stderr).toContain('packages/tangled/src/long.ts: 501 lines (at most 500)');
  });
});
