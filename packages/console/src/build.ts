/**
 * Builds the console's files from `app/` with esbuild: the Preact app and its CSS (Pico), Swagger
 * UI's two files from `swagger-ui-dist`, and the page that loads them. Every file but the page is
 * named by a hash of its content, so it can be cached for good. Run on first use when the
 * package runs from source, and by the package build (`tsup.config.ts`) for `dist/`.
 * @module
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONSOLE_PAGE, contentTypeOf, type ConsoleAsset } from './assets.js';

/** Swagger UI's files the API reference page loads, by role; the app finds their hashed names in `__CONSOLE_SWAGGER__`. */
const SWAGGER_FILES = { script: 'swagger-ui-bundle.js', stylesheet: 'swagger-ui.css' } as const;

/** The console's files from the package's sources (`packageDir` holds `app/` and `package.json`). */
export async function buildConsoleAssets(packageDir: string): Promise<Map<string, ConsoleAsset>> {
  const { build } = await import('esbuild');
  const files = new Map<string, Uint8Array>();
  const requireHere = createRequire(path.join(packageDir, 'package.json'));
  const swaggerDir = path.dirname(requireHere.resolve('swagger-ui-dist/package.json'));
  const swagger: Record<string, string> = {};
  for (const [role, file] of Object.entries(SWAGGER_FILES)) {
    const body = new Uint8Array(await readFile(path.join(swaggerDir, file)));
    const dot = file.lastIndexOf('.');
    const name = `${file.slice(0, dot)}.${digest(body).slice(0, 10)}${file.slice(dot)}`;
    files.set(name, body);
    swagger[role] = name;
  }

  const outdir = path.join(packageDir, 'out');
  const result = await build({
    entryPoints: { app: path.join(packageDir, 'app/main.tsx') },
    entryNames: '[name].[hash]',
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // The workspace's packages from their sources, as everything in the repository runs.
    conditions: ['agent-platform-source'],
    define: { __CONSOLE_SWAGGER__: JSON.stringify(swagger), 'process.env.NODE_ENV': '"production"' },
    legalComments: 'eof',
    write: false,
    logLevel: 'silent',
    absWorkingDir: packageDir,
  });
  const entries: Record<string, string> = {};
  for (const output of result.outputFiles) {
    const name = path.relative(outdir, output.path).split(path.sep).join('/');
    files.set(name, output.contents);
    entries[name.slice(name.lastIndexOf('.') + 1)] = name;
  }
  if (!entries.js || !entries.css) throw new Error('esbuild wrote no app.js or app.css');
  files.set(CONSOLE_PAGE, new TextEncoder().encode(page(entries.js, entries.css)));

  return new Map(
    [...files].map(([name, body]) => [
      name,
      {
        contentType: contentTypeOf(name),
        body,
        etag: `"${digest(body).slice(0, 27)}"`,
        immutable: name !== CONSOLE_PAGE,
        gzip: name === CONSOLE_PAGE || body.byteLength < MIN_GZIP_BYTES ? null : gzipSync(body, { level: 9 }),
      },
    ]),
  );
}

/** The page: no inline script or style (the Content-Security-Policy allows neither), nothing from another origin. */
const page = (script: string, stylesheet: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<base href="./">
<title>agent-platform console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${stylesheet}">
<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;

/** Files smaller than this are sent as they are. (The page is never gzipped: it is rewritten per request.) */
const MIN_GZIP_BYTES = 1024;

const digest = (body: Uint8Array) => createHash('sha256').update(body).digest('base64url');
