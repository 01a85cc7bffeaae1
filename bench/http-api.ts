/**
 * HTTP API throughput: the reference Fastify server (auth by hashed API key, memory storage,
 * validation, sealing) against a bare Fastify route that only parses the same JSON, on the same
 * machine in the same run. Prints one line of figures.
 *
 *   npx tsx --conditions=agent-platform-source bench/http-api.ts [seconds]
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 5);
const KEY = 'bench-key-0123456789abcdef';
const SETTINGS_BODY = JSON.stringify({ language: 'en', llm_model: 'anthropic/claude-sonnet-4', max_iterations: 50, confirmation_mode: false });

async function startServer(mode: 'platform' | 'bare'): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(path.join(here, 'support/api-server.ts'), [mode], {
    execArgv: ['--conditions=agent-platform-source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function load(url: string, method: 'GET' | 'POST'): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url: `${url}/api/settings`,
    method,
    connections: 32,
    duration: seconds,
    headers: { 'x-session-api-key': KEY, 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: SETTINGS_BODY } : {}),
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const figures: string[] = [];
for (const method of ['GET', 'POST'] as const) {
  const runs: Record<string, { rps: number; p99: number; errors: number }> = {};
  for (const mode of ['bare', 'platform'] as const) {
    const server = await startServer(mode);
    await load(server.url, method); // warm-up
    runs[mode] = await load(server.url, method);
    server.child.kill();
  }
  const bare = runs.bare!;
  const platform = runs.platform!;
  figures.push(
    `${method} /api/settings: platform ${Math.round(platform.rps)} req/s p99 ${platform.p99} ms (errors ${platform.errors}), bare ${Math.round(bare.rps)} req/s p99 ${bare.p99} ms, ratio ${(platform.rps / bare.rps).toFixed(2)}`,
  );
}
console.log(figures.join(' | '));
