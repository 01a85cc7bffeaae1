/**
 * The README's walkthrough, as a newcomer pastes it: its shell blocks (settings, a git token, a
 * webhook source, an automation, a signed event, the run watched to COMPLETED, its conversation)
 * run by bash against the reference server on embedded PGlite in one data directory — twice,
 * with a restart between, as someone coming back to it would. The second pass must not trip on
 * what the first registered.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { freePort } from '../support/readme-embedding.js';

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'ap-readme-'));
const running: RunningServer[] = [];

afterAll(async () => {
  for (const server of running) await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

/** The walkthrough's blocks, in order: from the one that sets `KEY` to the one that watches the run. */
function walkthrough(readme: string): { script: string; seededKeys: string } {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  const first = blocks.findIndex((block) => /^KEY=/m.test(block));
  const last = blocks.findIndex((block) => block.includes('runs/$RUN'));
  expect(first, 'the block that sets KEY').toBeGreaterThanOrEqual(0);
  expect(last, 'the block that watches the run').toBeGreaterThan(first);
  const seeded = /AGENT_PLATFORM_API_KEYS='([^']+)'/.exec(readme)?.[1];
  expect(seeded, 'the seeded key the README starts the server with').toBeTruthy();
  return { script: blocks.slice(first, last + 1).join('\n'), seededKeys: seeded as string };
}

async function pass(server: RunningServer, script: string): Promise<string> {
  // As a shell a user pastes into: no `set -e` (the checks below read what it printed).
  const { stdout, stderr } = await run('bash', ['-c', script.replaceAll('http://localhost:3000', server.baseUrl)], {
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
    stdout: error.stdout ?? '',
    stderr: `${error.stderr ?? ''}\nexit code ${error.code}`,
  }));
  return `${stdout}\n${stderr}`;
}

describe('the README walkthrough', { timeout: 300_000 }, () => {
  it('runs as pasted, twice over one data directory with a restart between', async () => {
    const { script, seededKeys } = walkthrough(readFileSync(path.join(root, 'README.md'), 'utf8'));
    for (const round of [1, 2]) {
      // A port of its own: the webhook URL the server hands out names it.
      const env = { AGENT_PLATFORM_STORAGE: 'pglite', AGENT_PLATFORM_DATA_DIR: dataDir, AGENT_PLATFORM_API_KEYS: seededKeys, PORT: String(await freePort()) };
      const server = await startServer('examples/server', env);
      running.push(server);
      const out = await pass(server, script);
      // The run was watched to its end, and its conversation holds what the demo agent said.
      expect(out, `pass ${round}`).toMatch(/^COMPLETED$/m);
      expect(out, `pass ${round}`).not.toMatch(/^null$|curl: |jq: error/m);
      expect(out, `pass ${round}`).toContain('"webhook_secret"');
      expect(out, `pass ${round}`).toMatch(/^automation \S+$/m);
      if (round === 2) {
        // Pasted twice: still one automation, and one run per event sent (one per pass).
        const key = seededKeys.split(':').at(-1) as string;
        const get = async (route: string) =>
          (await fetch(`${server.baseUrl}${route}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<Record<string, unknown[]>>;
        const automations = (await get('/api/automation/v1?limit=100')).automations as { id: string; name: string }[];
        expect(automations.filter((automation) => automation.name === 'triage')).toHaveLength(1);
        const triage = automations.find((automation) => automation.name === 'triage');
        const runs = (await get(`/api/automation/v1/runs?automation_id=${triage?.id}`)).items;
        expect(runs).toHaveLength(2);
      }
      expect(await stopServer(server), `pass ${round}: the server stops cleanly`).toBe(0);
      running.pop();
    }
  });
});
