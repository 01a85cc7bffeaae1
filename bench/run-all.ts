/** `pnpm bench`: every benchmark program in turn, one line of figures each. */
import { spawnSync } from 'node:child_process';

for (const program of [
  'http-api.ts',
  'matching.ts',
  'ingest-http.ts',
  'ingest-stages.ts',
  'sandbox-start.ts',
  'sandbox-warm.ts',
  'ingest-postgres.ts',
  'ingest-durable.ts',
  'client-overhead.ts',
  'event-to-agent.ts',
  'matching-freshness.ts',
  'filter-bounds.ts',
  'agent-step.ts',
  'thread-follow-up.ts',
  'audit-write.ts',
  'budget-check.ts',
  'overview-aggregate.ts',
  'security-policy.ts',
]) {
  spawnSync(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', program], { stdio: 'inherit' });
}
