/**
 * The console's files as built from source: the page loads only its own hashed files (no inline
 * script or style, nothing from another origin), the bundles stay small, and the browser app
 * type-checks with the DOM's types (in a child process: the compiler would hold this worker for
 * many seconds).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGE, consolePage, loadConsoleAssets } from './index.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const text = (body: Uint8Array) => new TextDecoder().decode(body);

describe('the console’s files', () => {
  it('a page that loads its own hashed script and stylesheet, and nothing else', async () => {
    const assets = await loadConsoleAssets();
    const html = text(assets.get(CONSOLE_PAGE)!.body);
    const referenced = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
    expect(referenced).toEqual(['./', 'data:,', expect.stringMatching(/^app\.[A-Z0-9]+\.css$/), expect.stringMatching(/^app\.[A-Z0-9]+\.js$/)]);
    for (const file of referenced.slice(2)) expect(assets.get(file)?.immutable, file).toBe(true);
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i);
    expect(assets.get(CONSOLE_PAGE)!.immutable).toBe(false);
  });

  it('sets the page’s base for the path it is served at', async () => {
    const assets = await loadConsoleAssets();
    expect(text(consolePage(assets, '../../').body)).toContain('<base href="../../">');
    expect(consolePage(assets, '../').etag).not.toBe(consolePage(assets, '../../').etag);
    expect(() => consolePage(assets, 'https://evil.example/')).toThrow();
  });

  it('keeps the bundles small (Swagger UI is loaded by the API reference page only)', async () => {
    const assets = await loadConsoleAssets();
    console.log(
      `console files (bytes, gzipped): ${[...assets].map(([name, asset]) => `${name} ${asset.body.byteLength}${asset.gzip ? ` (${asset.gzip.byteLength})` : ''}`).join(', ')}`,
    );
    const sizes = Object.fromEntries(
      [...assets].map(([name, asset]) => [name.replace(/\.[^.]+\.(js|css)$/, '.$1'), { bytes: asset.body.byteLength, gzip: asset.gzip?.byteLength }]),
    );
    // A run's story (its timeline, transcript, Markdown, ANSI colours and diffs) took about 21 kB of it.
    expect(sizes['app.js']!.bytes).toBeLessThan(185_000);
    expect(sizes['app.css']!.bytes).toBeLessThan(120_000);
    expect(sizes['swagger-ui-bundle.js']!.gzip).toBeLessThan(sizes['swagger-ui-bundle.js']!.bytes / 2);
    expect([...assets.keys()].filter((name) => name.endsWith('.js'))).toHaveLength(2);
  });

  it('the browser app type-checks with the DOM’s types', async () => {
    const result = await new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(packageDir, 'scripts/typecheck-app.mjs')], { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('close', (status) => resolve({ status, output }));
    });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);
});
