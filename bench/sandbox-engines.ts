/**
 * Placement across Docker engines: the Docker runtime's start-to-RUNNING on one engine against
 * the same runtime over two engines (this machine's and a second dockerd), alternating, and what
 * placement itself costs per start (finding the id on every engine and counting each one's
 * sandboxes: what a single engine does not do), p50 and p90.
 * Each sandbox goes before the next starts, so every start of the two-engine runtime lands on
 * the first engine (a tie goes to the engine listed first): the same engine either way, and the
 * difference is placement's.
 *
 *   pnpm --dir bench exec tsx --conditions=agent-platform-source sandbox-engines.ts [rounds]
 *
 * Needs both engines with the test image (`bash scripts/docker-setup.sh`, then
 * `bash scripts/docker-second-engine.sh`). Not part of run-all: most machines have one engine.
 */
import type { Logger } from '@agent-platform/core';
import { createDockerRuntime } from '@agent-platform/sandbox-docker';

const IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';
const SECOND = process.env.AGENT_PLATFORM_SECOND_DOCKER_HOST ?? 'unix:///run/agent-platform-docker-2.sock';
const ROUNDS = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 20);
// The second engine has no bridge network: both contenders run without one, alike.
const SPEC = { image: IMAGE, network: 'none' };
const namePrefix = `bench-engines-${process.pid}-`;

const placements: number[] = [];
const logger = { debug: (fields: { placementMs?: number }) => fields.placementMs !== undefined && placements.push(fields.placementMs) } as unknown as Logger;
const one = createDockerRuntime({ images: [SPEC], namePrefix, pull: false });
const two = createDockerRuntime({ images: [SPEC], namePrefix, pull: false, logger, engines: ['first=unix:///var/run/docker.sock', `second=${SECOND}`] });
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] as number;

const figures = { one: [] as number[], two: [] as number[] };
const engines = new Map<string, number>();
for (let round = -1; round < ROUNDS; round++) {
  const contenders = [
    ['one', one],
    ['two', two],
  ] as const;
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  for (const [name, runtime] of order) {
    const sandboxId = `${name}-${round + 1}`;
    const began = performance.now();
    const sandbox = await runtime.start({ sandboxId, specId: IMAGE });
    const ms = performance.now() - began;
    if (sandbox.status !== 'RUNNING') throw new Error(`sandbox is ${sandbox.status}`);
    if (round >= 0) figures[name].push(ms);
    if (sandbox.engine) engines.set(sandbox.engine, (engines.get(sandbox.engine) ?? 0) + 1);
    await runtime.delete(sandboxId);
  }
}
await Promise.all([one.close(), two.close()]);
const counted = placements.slice(1);
console.log(
  [
    `sandbox-engines, ${ROUNDS} rounds:`,
    `one engine start p50 ${percentile(figures.one, 0.5).toFixed(1)} ms (p90 ${percentile(figures.one, 0.9).toFixed(1)})`,
    `two engines start p50 ${percentile(figures.two, 0.5).toFixed(1)} ms (p90 ${percentile(figures.two, 0.9).toFixed(1)})`,
    `placement per start p50 ${percentile(counted, 0.5).toFixed(1)} ms (p90 ${percentile(counted, 0.9).toFixed(1)})`,
    `placed: ${[...engines].map(([engine, count]) => `${engine} ${count}`).join(', ')}`,
  ].join(' | '),
);
