#!/usr/bin/env node
/**
 * `agent-platform-migrate`: applies the pending schema migrations to `DATABASE_URL` (or
 * `--pglite <dir>`) and prints what it applied. See `migrate-command.ts`.
 * @module
 */
import { runMigrateCommand } from './migrate-command.js';

void runMigrateCommand(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
}).then((code) => {
  process.exitCode = code;
});
