#!/usr/bin/env node
// `pnpm test`: runs `vitest run` over every project in vitest.config.ts (extra CLI args are
// passed through, e.g. `pnpm test --project unit`), then prints one summary line as the very
// last line of output:  `N passed, N failed[, N skipped]`.
//
// Vitest writes its usual console report plus a JSON report to .test-results/ (gitignored);
// the summary is computed from the JSON. Exit code is non-zero if vitest failed, if no test ran,
// or if vitest crashed without writing the JSON report (then the summary is `0 passed, 1 failed`).
// A selection whose every test skipped (say `pnpm test packages/storage-postgres` on a machine
// without PostgreSQL) says so and exits 0, since nothing failed; under CI it exits 1, because CI
// must run what it selects.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = path.join(root, '.test-results');
const jsonFile = path.join(resultsDir, 'vitest.json');

// Never read a stale report from an earlier run.
mkdirSync(resultsDir, { recursive: true });
rmSync(jsonFile, { force: true });

// Run vitest's own bin with this node, so no shell or global install is involved.
const vitestBin = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const args = process.argv.slice(2);
// The console reporter is `default` unless the caller picked one (e.g. `--reporter=verbose`).
const consoleReporter = args.some((a) => a.startsWith('--reporter')) ? [] : ['--reporter=default'];
const run = spawnSync(process.execPath, [vitestBin, 'run', ...consoleReporter, '--reporter=json', `--outputFile.json=${jsonFile}`, ...args], {
  cwd: root,
  stdio: 'inherit',
});
if (run.error) console.error(run.error);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(jsonFile)) {
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A file that fails without any failing test (import error, failing beforeAll, which marks its
  // tests skipped) still counts as one failure, so the summary never looks green when it is not.
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed').length;
    if (file.status === 'failed' && failedTests === 0) failed += 1;
  }
} else {
  failed = 1; // vitest crashed before reporting
}

const allSkipped = failed === 0 && passed === 0 && skipped > 0;
if (allSkipped) {
  console.log(
    `No test ran: all ${skipped} selected tests were skipped. Their reasons are printed above (a PostgreSQL server, a Docker engine or Chromium this machine lacks).`,
  );
}
// Vitest itself exits 1 when every test skipped; that is not a failure here (outside CI).
const vitestOk = run.status === 0 || (allSkipped && existsSync(jsonFile));
const ok = vitestOk && failed === 0 && (passed > 0 || (allSkipped && process.env.CI !== 'true'));
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = ok ? 0 : 1;
