/**
 * What `agent-platform-migrate` does, apart from the process: reads where to migrate from the
 * arguments and environment, migrates, prints what it applied; returns the exit code.
 * @module
 */
import { migrate, type MigrateOptions } from './migrate-api.js';

export const USAGE = `Usage: agent-platform-migrate [--database-url <url> | --pglite <dir>]

Applies the pending agent-platform schema migrations and prints what it applied.
  --database-url <url>  PostgreSQL to migrate (default: the DATABASE_URL environment variable)
  --pglite <dir>        a PGlite data directory to migrate instead (created when missing)
Safe to run from several processes at once, and again: each migration is applied once.`;

export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Where to migrate, from `args` (and `DATABASE_URL`); a string is a usage error. */
export function parseArguments(args: readonly string[], env: Readonly<Record<string, string | undefined>>): MigrateOptions | 'help' | string {
  let url: string | undefined;
  let dataDir: string | undefined;
  for (let n = 0; n < args.length; n += 1) {
    const arg = args[n];
    if (arg === '--help' || arg === '-h') return 'help';
    const [flag, inline] = (arg ?? '').split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag !== '--pglite' && flag !== '--database-url') return `unknown argument "${arg}"`;
    const value = inline ?? args[++n];
    if (!value) return `${flag} needs a value`;
    if (flag === '--pglite') dataDir = value;
    else url = value;
  }
  if (url !== undefined && dataDir !== undefined) return 'give --database-url or --pglite, not both';
  if (dataDir !== undefined) return { dataDir };
  url ??= env.DATABASE_URL?.trim() || undefined;
  if (url === undefined) return 'set DATABASE_URL, or pass --database-url <url> or --pglite <dir>';
  return { connectionString: url };
}

export async function runMigrateCommand(args: readonly string[], env: Readonly<Record<string, string | undefined>>, output: CommandOutput): Promise<number> {
  const options = parseArguments(args, env);
  if (options === 'help') {
    output.out(USAGE);
    return 0;
  }
  if (typeof options === 'string') {
    output.err(`agent-platform-migrate: ${options}\n\n${USAGE}`);
    return 2;
  }
  try {
    const { applied, version } = await migrate(options);
    for (const migration of applied) output.out(`applied ${String(migration.version).padStart(4, '0')}_${migration.name}`);
    output.out(applied.length === 0 ? `schema up to date at version ${version}` : `schema now at version ${version}`);
    return 0;
  } catch (error) {
    // Storage errors never carry the URL's password; others come from the SQL, not the URL.
    output.err(`agent-platform-migrate: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
