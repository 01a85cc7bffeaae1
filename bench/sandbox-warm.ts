/**
 * Warm pool: a run's wait from the claim to its first command's answer — `runtime.start()` then
 * `exec('echo ok')` to its exit — on the Docker runtime without a pool (cold) and with one
 * (warm), taking turns, on the same engine. Starts are as a run's: bound to this process, with a
 * session API key. Before each warm sample the pool is full again, so every warm start is served
 * from it (the hits are counted); a cold start waits for no refill. A second command in the warm
 * sandbox gives the floor: what a command costs in a sandbox that is running anyway.
 *
 *   pnpm --dir bench exec tsx --conditions=agent-platform-source sandbox-warm.ts [samples]
 *
 * Needs a Docker engine and the test image (`bash scripts/docker-setup.sh`).
 */
import Dockerode from 'dockerode';
import { createDockerRuntime } from '@agent-platform/sandbox-docker';
import { percentile } from './support/stats.js';

const IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';
const SAMPLES = Number(process.argv[2] ?? 30);
const POOL = 2;
const prefix = `bench-warm-${process.pid}-`;
const docker = new Dockerode();
// No network: the engine's bridge set-up is not what is measured (and some test engines lack one).
const images = [{ image: IMAGE, network: 'none' }];
const cold = createDockerRuntime({ images, namePrefix: `${prefix}c-` });
const warm = createDockerRuntime({ images, namePrefix: `${prefix}w-`, warmPool: { [IMAGE]: POOL } });

async function poolFull(): Promise<void> {
  for (;;) {
    const idle = await docker.listContainers({ filters: { name: [`^/${prefix}w-_pool-`] } });
    if (idle.length >= POOL) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function claimToFirstCommand(runtime: ReturnType<typeof createDockerRuntime>, sandboxId: string): Promise<number> {
  const began = process.hrtime.bigint();
  await runtime.start({ sandboxId, specId: IMAGE, boundToProcess: true, sessionApiKey: 'bench-key' });
  let out = '';
  for await (const event of runtime.exec(sandboxId, { command: 'echo ok' })) if (event.type === 'stdout') out += event.data;
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  if (out !== 'ok\n') throw new Error(`unexpected output ${JSON.stringify(out)}`);
  return ms;
}

const figures = { cold: [] as number[], warm: [] as number[], exec: [] as number[] };
let hits = 0;
for (let round = -1; round < SAMPLES; round++) {
  const id = `s${round + 1}`;
  await poolFull();
  const before = new Set((await docker.listContainers({ filters: { name: [`^/${prefix}w-_pool-`] } })).map((container) => container.Id));
  const order = round % 2 === 0 ? (['warm', 'cold'] as const) : (['cold', 'warm'] as const);
  for (const kind of order) {
    const ms = await claimToFirstCommand(kind === 'warm' ? warm : cold, id);
    if (round >= 0) figures[kind].push(ms);
  }
  if (round >= 0 && before.has((await docker.getContainer(`${prefix}w-${id}`).inspect()).Id)) hits++;
  // The floor: a command in a sandbox already running (what no pool can take off).
  const began = process.hrtime.bigint();
  for await (const event of warm.exec(id, { command: 'echo ok' })) void event;
  if (round >= 0) figures.exec.push(Number(process.hrtime.bigint() - began) / 1e6);
  await Promise.all([cold.delete(id), warm.delete(id)]);
}
await Promise.all([cold.close(), warm.close()]);

const line = (values: number[]) => `p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms`;
const { ServerVersion, Driver } = await docker.info();
console.log(
  [
    `sandbox-warm docker ${ServerVersion} (${Driver}), ${SAMPLES} samples each:`,
    `cold start → first command ${line(figures.cold)}`,
    `warm (pool of ${POOL}, ${hits}/${SAMPLES} served from it) ${line(figures.warm)}`,
    `a second command ${line(figures.exec)}`,
    `target warm p50 <= 150 ms`,
  ].join(' | '),
);
