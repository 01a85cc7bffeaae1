/**
 * Sandbox start: the Docker runtime's start-to-RUNNING against a plain `docker run -d`
 * of the same image, alternating, on the same engine. Also the bare Engine API calls (create +
 * start with dockerode), to show what the runtime itself adds.
 *
 *   pnpm --dir bench exec tsx --conditions=agent-platform-source sandbox-start.ts [rounds]
 *
 * Needs a Docker engine and the test image (`bash scripts/docker-setup.sh`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Dockerode from 'dockerode';
import { createDockerRuntime } from '@agent-platform/sandbox-docker';

const run = promisify(execFile);
const IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';
const ROUNDS = Number(process.argv[2] ?? 30);
const KEEP_ALIVE = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";

const docker = new Dockerode();
const runtime = createDockerRuntime({ images: [IMAGE] });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)] as number;

async function timed(action: () => Promise<unknown>): Promise<number> {
  const began = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - began) / 1e6;
}

const cli: number[] = [];
const api: number[] = [];
const ours: number[] = [];
const suffix = `${process.pid}`;

// The engine's own timings drift (a run of starts slows it down): the three take turns going
// first, and one warm-up round is not counted.
for (let round = -1; round < ROUNDS; round++) {
  const n = round + 1;
  const contenders: [number[], () => Promise<unknown>, () => Promise<unknown>][] = [
    [
      cli,
      () => run('docker', ['run', '-d', '--name', `bench-cli-${suffix}-${n}`, '--entrypoint', '/bin/sh', IMAGE, '-c', KEEP_ALIVE]),
      () => docker.getContainer(`bench-cli-${suffix}-${n}`).remove({ force: true }),
    ],
    [
      api,
      async () => {
        const container = await docker.createContainer({ name: `bench-api-${suffix}-${n}`, Image: IMAGE, Entrypoint: ['/bin/sh', '-c'], Cmd: [KEEP_ALIVE] });
        await container.start();
      },
      () => docker.getContainer(`bench-api-${suffix}-${n}`).remove({ force: true }),
    ],
    [
      ours,
      async () => {
        const sandbox = await runtime.start({ sandboxId: `bench-${suffix}-${n}`, specId: IMAGE });
        if (sandbox.status !== 'RUNNING') throw new Error(`sandbox is ${sandbox.status}`);
      },
      () => runtime.delete(`bench-${suffix}-${n}`),
    ],
  ];
  const order = [0, 1, 2].map((i) => contenders[(i + n) % 3]!);
  for (const [figures, start] of order) {
    const ms = await timed(start);
    if (round >= 0) figures.push(ms);
  }
  for (const [, , remove] of order) await remove();
  await new Promise((resolve) => setTimeout(resolve, 200));
}
await runtime.close();

const { ServerVersion, Driver } = await docker.info();
console.log(
  [
    `sandbox-start docker ${ServerVersion} (${Driver}), ${ROUNDS} rounds:`,
    `docker run -d median ${median(cli).toFixed(1)} ms (p90 ${p90(cli).toFixed(1)})`,
    `API create+start ${median(api).toFixed(1)} ms (p90 ${p90(api).toFixed(1)})`,
    `runtime.start ${median(ours).toFixed(1)} ms (p90 ${p90(ours).toFixed(1)})`,
    `ratio vs docker run ${(median(ours) / median(cli)).toFixed(2)} (target <= 1.2)`,
  ].join(' | '),
);
