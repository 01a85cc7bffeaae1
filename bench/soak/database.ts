/**
 * The soak's own PostgreSQL cluster (`test/e2e/support/pg-cluster.ts`: a throwaway cluster on a
 * free port, never the machine's server) and its restart as a fault. `PgCluster.stop()`/`start()`
 * block the soak's event loop (they wait on `pg_ctl` synchronously), which would freeze the proxy,
 * the model and the ledger's watch with it; the restart here runs `pg_ctl` asynchronously instead,
 * with the options the cluster was started with (its `postmaster.opts`).
 * @module
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPgCluster, pgClusterAvailable, type PgCluster } from '../../test/e2e/support/pg-cluster.js';

export { pgClusterAvailable };

export interface SoakDatabase {
  cluster: PgCluster;
  /** A pool on the cluster itself (not through the proxy), for setup reads and the checks. */
  pool: pg.Pool;
  /** Stops PostgreSQL (fast shutdown: sessions are cut), waits `downMs`, starts it again. */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
}

function pgCtl(bin: string, args: string[]): Promise<void> {
  const command = path.join(bin, 'pg_ctl');
  const child =
    userInfo().uid === 0 ? spawn('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' }) : spawn(command, args, { stdio: 'pipe' });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args.join(' ')}: exit ${code}: ${Buffer.concat(output)}`))));
  });
}

export async function startDatabase(): Promise<SoakDatabase> {
  const cluster = await createPgCluster();
  const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  // The cluster going down (the restart) cuts idle connections: not an error of the soak's.
  pool.on('error', () => {});
  const dataDir = (await pool.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
  // `/usr/lib/postgresql/15/bin/postgres "-D" "<data>" "-p" "<port>" ...`: the binary, then the options.
  const opts = readFileSync(path.join(dataDir, 'postmaster.opts'), 'utf8').trim();
  const binary = /^\S+/.exec(opts)![0];
  const startOptions = opts
    .slice(binary.length)
    .replace(/"-D"\s+"[^"]*"/, '')
    .trim();
  const bin = path.dirname(binary);
  const logFile = path.join(path.dirname(dataDir), 'log');
  return {
    cluster,
    pool,
    async restart(downMs) {
      await pgCtl(bin, ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await pgCtl(bin, ['-D', dataDir, '-o', startOptions, '-l', logFile, '-w', 'start']);
    },
    async close() {
      await pool.end().catch(() => {});
      cluster.destroy();
    },
  };
}
