/**
 * Ingest over HTTP: signed real GitHub `pull_request.opened` payloads (from
 * `@octokit/webhooks-examples`, owner rewritten per org) posted to three servers in turn, each in
 * its own child process, by autocannon in this process: the reference server (memory storage,
 * 10,000 automations across 1,000 orgs, 1% matching), a bare Fastify route that only parses the
 * JSON, and `@octokit/webhooks`' Node middleware. Every request has a fresh X-GitHub-Delivery, so
 * none is a duplicate. Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source ingest-http.ts [seconds] [connections]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signedPullRequestBodies } from './support/github-ingest-setup.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 32);
const INGEST_PATH = '/api/automation/v1/events/github';
// Strings: autocannon's request body.
const bodies = signedPullRequestBodies().map(({ body, signature }) => ({ body: body.toString(), signature }));

async function startServer(mode: string): Promise<{ child: ChildProcess; url: string }> {
  const profile = process.env.BENCH_CPU_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const child = fork(path.join(here, 'support/ingest-server.ts'), [mode], {
    execArgv: ['--conditions=agent-platform-source', '--import', 'tsx', ...profile, ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The child's user + system CPU time in seconds so far (Linux: /proc/<pid>/stat, in clock ticks). */
function cpuSeconds(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

let counter = 0;
async function load(url: string, duration: number) {
  const result = await autocannon({
    url: url + INGEST_PATH,
    method: 'POST',
    connections,
    duration,
    requests: [
      {
        setupRequest(request) {
          const one = bodies[counter % bodies.length]!;
          counter++;
          return {
            ...request,
            body: one.body,
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'pull_request',
              'x-github-delivery': `bench-${process.pid}-${counter}`,
              'x-hub-signature-256': one.signature,
            },
          };
        },
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, total: result.requests.total };
}

const results: Record<string, Awaited<ReturnType<typeof load>> & { cpuMicros: number }> = {};
// `BENCH_SERVERS=platform,platform+metrics,platform+traces` compares the reference app without
// telemetry, with its Prometheus metrics, and with metrics and traces exported over OTLP.
const modes = process.env.BENCH_SERVERS?.split(',').filter(Boolean) ?? ['bare', 'octokit', 'platform'];
for (const mode of modes) {
  const server = await startServer(mode);
  await load(server.url, 3); // warm-up
  const cpuBefore = cpuSeconds(server.child);
  const measured = await load(server.url, seconds);
  results[mode] = { ...measured, cpuMicros: ((cpuSeconds(server.child) - cpuBefore) * 1e6) / measured.total };
  server.child.kill('SIGINT');
  await new Promise((resolve) => server.child.once('exit', resolve));
}
const { bare, octokit, platform } = results as Record<'bare' | 'octokit' | 'platform', (typeof results)[string]>;
const fmt = (name: string, r: (typeof results)[string]) =>
  `${name} ${Math.round(r.rps)} deliveries/s p99 ${r.p99} ms server CPU ${Math.round(r.cpuMicros)} µs/delivery (errors ${r.errors})`;
if (!bare || !octokit || !platform) {
  console.log(
    `ingest-http (${connections} connections, ${seconds}s): ${Object.entries(results)
      .map(([mode, r]) => fmt(mode, r))
      .join(', ')}`,
  );
  process.exit(0);
}
console.log(
  `ingest-http (${connections} connections, ${seconds}s): ${fmt('platform', platform)}, ${fmt('bare', bare)}, ${fmt('octokit', octokit)}; platform/bare ${(platform.rps / bare.rps).toFixed(2)} (target >= 0.75), octokit/bare ${(octokit.rps / bare.rps).toFixed(2)}, platform/octokit ${(platform.rps / octokit.rps).toFixed(2)} (target > 1)`,
);
