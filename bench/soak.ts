/**
 * A soak with faults (docs/reliability.md): reference servers and workers on a PostgreSQL cluster
 * of the soak's own, behind a proxy that can pause, take thousands of signed deliveries over many
 * orgs while processes are killed, PostgreSQL restarts and the network stalls; then the database
 * and the LEDGER of what the runs' commands really executed are checked: deliveries stored once,
 * runs final once with one final message each, limits and concurrency keys never exceeded, no tool
 * call executed twice.
 *
 *   pnpm soak [--ci] [--deliveries 2000] [--orgs 20] [--kill-every 8] ... (pnpm soak --help)
 *
 * Prints progress, then a summary with each check's violations; exits 1 on any violation.
 */
import { formatReport } from './soak/report.js';
import { parseOptions, USAGE } from './soak/options.js';
import { pgClusterAvailable } from './soak/database.js';
import { abortSoaks, runSoak } from './soak/run.js';

if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}
let options: ReturnType<typeof parseOptions>;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
if (!pgClusterAvailable()) {
  console.error('the soak needs PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql');
  process.exit(2);
}
process.once('SIGINT', () => {
  console.error('interrupted: stopping the processes and removing the cluster');
  void abortSoaks().finally(() => process.exit(130));
});
const report = await runSoak(options);
console.log(formatReport(report));
process.exit(report.violations === 0 ? 0 : 1);
