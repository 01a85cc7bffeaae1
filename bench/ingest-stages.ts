/**
 * Where one GitHub delivery's ingest time goes, in process (no HTTP): each stage of
 * `POST /api/automation/v1/events/github` timed alone on the real `pull_request.opened` payload
 * (21 KB), then the whole `events.ingestGithub` on the benchmark's reference setup (memory
 * storage, 1,000 orgs, 10,000 automations, 1% matching). The HTTP benchmark's server CPU per
 * delivery minus the whole figure here is what the HTTP layer costs. Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source ingest-stages.ts [seconds-per-stage]
 */
import { decodeUtf8, jsonNestingExceeds, verifySignature } from '@agent-platform/core';
import { createServerPlatform } from '@agent-platform/example-server/platform';
import { loadConfig } from '@agent-platform/example-server/config';
import { pino } from 'pino';
import { GITHUB_SECRET, seedGithubOrgs, signedPullRequestBodies } from './support/github-ingest-setup.js';

const seconds = Number(process.argv[2] ?? 2);
const bodies = signedPullRequestBodies();

/** Mean µs per call of `step` over `seconds`, after a 0.5 s warm-up. */
async function time(step: (i: number) => unknown): Promise<number> {
  let i = 0;
  const warm = performance.now() + 500;
  while (performance.now() < warm) await step(i++);
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < seconds * 1000) {
    await step(i++);
    calls++;
  }
  return ((performance.now() - started) * 1000) / calls;
}

const one = (i: number) => bodies[i % bodies.length]!;
const text = decodeUtf8(one(0).body);
const stages: Record<string, number> = {
  hmac: await time((i) =>
    verifySignature({ scheme: 'github', headers: { 'x-hub-signature-256': one(i).signature }, body: one(i).body, secrets: [GITHUB_SECRET], now: new Date() }),
  ),
  utf8: await time((i) => decodeUtf8(one(i).body)),
  'nesting scan': await time(() => jsonNestingExceeds(text, 128)),
  'JSON.parse': await time(() => JSON.parse(text)),
};

const config = loadConfig({
  AGENT_PLATFORM_STORAGE: 'memory',
  AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
  AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
});
const { platform } = await createServerPlatform(config, pino({ level: 'error' }));
await seedGithubOrgs(platform);
const whole = await time((i) =>
  platform.events.ingestGithub({
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': `stage-${i}`,
      'x-hub-signature-256': one(i).signature,
    },
    body: one(i).body,
  }),
);
const parts = Object.entries(stages)
  .map(([name, micros]) => `${name} ${micros.toFixed(1)}`)
  .join(', ');
const named = Object.values(stages).reduce((sum, micros) => sum + micros, 0);
console.log(`ingest-stages (µs per delivery): ${parts}; whole ingestGithub ${whole.toFixed(1)} (the rest: ${(whole - named).toFixed(1)})`);
await platform.stop();
process.exit(0);
