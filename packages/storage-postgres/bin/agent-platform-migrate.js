#!/usr/bin/env node
// `agent-platform-migrate`: runs the built CLI (dist/migrate-cli.js). The bin is this small file,
// not the built one, so that installing the workspace, before any build, links a file that
// exists (pnpm warns about a bin whose file is missing).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/migrate-cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('agent-platform-migrate: @agent-platform/storage-postgres is not built yet; run `pnpm build` in the workspace first');
  process.exit(1);
}
await import(cli.href);
