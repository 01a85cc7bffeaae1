/**
 * What the typed client costs over a bare `fetch`, against the reference server (a child
 * process, memory storage) on the same machine in the same run:
 *   - GET /api/settings: requests/s with 16 concurrent callers, `client.settings.get()` against
 *     `fetch` + `res.json()` with the same header, alternating order over several rounds;
 *   - the client's own CPU per call, over a fetch that answers at once (no network);
 *   - signing a 1 KB event body: the client's Web Crypto HMAC against core's node:crypto one.
 * Prints one line of figures.
 *
 *   npx tsx --conditions=agent-platform-source bench/client-overhead.ts [seconds-per-round] [rounds]
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@agent-platform/client';
import { signatureHeaders as coreSignatureHeaders } from '@agent-platform/core';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 4);
const CONCURRENCY = 16;
/** The key support/api-server.ts seeds (importing that module would start a server here). */
const BENCH_KEY = 'bench-key-0123456789abcdef';

const child = fork(path.join(here, 'support/api-server.ts'), ['platform'], {
  execArgv: ['--conditions=agent-platform-source', '--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const port = await new Promise<number>((resolve, reject) => {
  child.once('message', (message) => resolve((message as { port: number }).port));
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const baseUrl = `http://127.0.0.1:${port}`;
const client = createClient({ baseUrl, apiKey: BENCH_KEY });

const viaFetch = async () => {
  const response = await fetch(`${baseUrl}/api/settings`, { headers: { 'x-session-api-key': BENCH_KEY, accept: 'application/json' } });
  if (!response.ok) throw new Error(`status ${response.status}`);
  return response.json();
};
const viaClient = () => client.settings.get();

/** Requests per second with CONCURRENCY callers looping for `seconds`. */
async function throughput(call: () => Promise<unknown>): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        done += 1;
      }
    }),
  );
  return done / seconds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

await throughput(viaFetch); // warm-up, both paths
await throughput(viaClient);
const fetchRates: number[] = [];
const clientRates: number[] = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ([viaFetch, viaClient] as const) : ([viaClient, viaFetch] as const);
  for (const call of order) (call === viaFetch ? fetchRates : clientRates).push(await throughput(call));
}
child.kill();

// The client's own CPU per call, without a network: both paths over a fetch that answers at once.
const canned = () => new Response('{"language":null,"llm_model":"m"}', { status: 200, headers: { 'content-type': 'application/json' } });
const stubClient = createClient({ baseUrl, apiKey: BENCH_KEY, fetch: async () => canned() });
const stubFetch = async (_url: string, _init: RequestInit) => canned();
const CALLS = 20_000;
async function perCall(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2_000; i++) await call(); // warm-up
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  return ((performance.now() - start) * 1000) / CALLS;
}
const bareUs = await perCall(async () => (await stubFetch(`${baseUrl}/api/settings`, { headers: { 'x-session-api-key': BENCH_KEY } })).json());
const clientUs = await perCall(() => stubClient.settings.get());

// Signing: microseconds per 1 KB body.
const body = new TextEncoder().encode(JSON.stringify({ type: 'Issue', data: { text: 'x'.repeat(980) } }));
const SIGNS = 5_000;
const { signatureHeaders } = await import('../packages/client/src/signing/signing.js');
let started = performance.now();
for (let i = 0; i < SIGNS; i++) await signatureHeaders({ scheme: 'hmac-sha256', secret: 'whsec_bench', body, timestamp: 0, id: 'x' });
const webCryptoUs = ((performance.now() - started) * 1000) / SIGNS;
started = performance.now();
for (let i = 0; i < SIGNS; i++) coreSignatureHeaders({ scheme: 'hmac-sha256', secret: 'whsec_bench', body, now: new Date() });
const nodeCryptoUs = ((performance.now() - started) * 1000) / SIGNS;

const f = median(fetchRates);
const c = median(clientRates);
console.log(
  `client CPU per call (no network): ${clientUs.toFixed(1)} µs vs ${bareUs.toFixed(1)} µs for a bare call | GET /api/settings x${CONCURRENCY}: client ${Math.round(c)} req/s, bare fetch ${Math.round(f)} req/s, ratio ${(c / f).toFixed(2)} (median of ${rounds} × ${seconds} s; client ${clientRates.map(Math.round).join('/')}, fetch ${fetchRates.map(Math.round).join('/')}) | sign 1 KB hmac-sha256: client (Web Crypto) ${webCryptoUs.toFixed(1)} µs, core (node:crypto) ${nodeCryptoUs.toFixed(1)} µs`,
);
