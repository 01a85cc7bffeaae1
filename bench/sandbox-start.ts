/**
 * Sandbox start: the Docker runtime's start-to-RUNNING against a plain `docker run -d`
 * of the same image, alternating, on the same engine. Also the bare Engine API calls (create +
 * start with dockerode), to show what the runtime itself adds.
 *
 *   pnpm --dir bench exec tsx --conditions=agent-platform-source sandbox-start.ts [rounds] [--runtime-class runsc]
 *
 * With `--runtime-class`, every contender runs under that OCI runtime (`runsc`: gVisor), all with
 * Docker's `none` network (as gVisor must run here, so runc and runsc compare like for like), and the runtime's figures add its first command (`true`, from
 * the start's call to the command's exit: what a run waits for before its agent does anything)
 * and a sandbox's whole life (start, first command, delete), p50 and p99.
 *
 * Needs a Docker engine and the test image (`bash scripts/docker-setup.sh`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Dockerode from 'dockerode';
import { createDockerRuntime } from '@agent-platform/sandbox-docker';

const run = promisify(execFile);
const IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';
const args = process.argv.slice(2);
const classAt = args.indexOf('--runtime-class');
const RUNTIME_CLASS = classAt >= 0 ? args[classAt + 1] : undefined;
const ROUNDS = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 30);
/** `docker run` flags and create options for the runtime class (gVisor runs without a network here: all do). */
const CLASS_FLAGS = RUNTIME_CLASS ? ['--runtime', RUNTIME_CLASS, '--network', 'none'] : [];
const CLASS_HOST_CONFIG = RUNTIME_CLASS ? { HostConfig: { Runtime: RUNTIME_CLASS, NetworkMode: 'none' } } : {};
const KEEP_ALIVE = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";

const docker = new Dockerode();
const runtime = createDockerRuntime({ images: [IMAGE], ...(RUNTIME_CLASS ? { runtimeClass: RUNTIME_CLASS, network: 'none' } : {}) });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)] as number;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] as number;

async function timed(action: () => Promise<unknown>): Promise<number> {
  const began = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - began) / 1e6;
}

const cli: number[] = [];
const api: number[] = [];
const ours: number[] = [];
const firstCommand: number[] = [];
const life: number[] = [];
const suffix = `${process.pid}`;

// The engine's own timings drift (a run of starts slows it down): the three take turns going
// first, and one warm-up round is not counted.
for (let round = -1; round < ROUNDS; round++) {
  const n = round + 1;
  const contenders: [number[], () => Promise<unknown>, () => Promise<unknown>][] = [
    [
      cli,
      () => run('docker', ['run', '-d', ...CLASS_FLAGS, '--name', `bench-cli-${suffix}-${n}`, '--entrypoint', '/bin/sh', IMAGE, '-c', KEEP_ALIVE]),
      () => docker.getContainer(`bench-cli-${suffix}-${n}`).remove({ force: true }),
    ],
    [
      api,
      async () => {
        const container = await docker.createContainer({
          name: `bench-api-${suffix}-${n}`,
          Image: IMAGE,
          Entrypoint: ['/bin/sh', '-c'],
          Cmd: [KEEP_ALIVE],
          ...CLASS_HOST_CONFIG,
        });
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
  if (RUNTIME_CLASS) {
    const sandboxId = `bench-life-${suffix}-${n}`;
    const began = performance.now();
    await runtime.start({ sandboxId, specId: IMAGE });
    for await (const event of runtime.exec(sandboxId, { command: 'true' })) {
      if (event.type === 'exit' && event.result.exitCode !== 0) throw new Error('the first command failed');
    }
    const commanded = performance.now();
    await runtime.delete(sandboxId);
    if (round >= 0) {
      firstCommand.push(commanded - began);
      life.push(performance.now() - began);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
await runtime.close();

const { ServerVersion, Driver } = await docker.info();
console.log(
  [
    `sandbox-start docker ${ServerVersion} (${Driver})${RUNTIME_CLASS ? ` under ${RUNTIME_CLASS}` : ''}, ${ROUNDS} rounds:`,
    `docker run -d median ${median(cli).toFixed(1)} ms (p90 ${p90(cli).toFixed(1)})`,
    `API create+start ${median(api).toFixed(1)} ms (p90 ${p90(api).toFixed(1)})`,
    `runtime.start ${median(ours).toFixed(1)} ms (p90 ${p90(ours).toFixed(1)})`,
    `ratio vs docker run ${(median(ours) / median(cli)).toFixed(2)} (target <= 1.2)`,
    ...(RUNTIME_CLASS
      ? [
          `start to first command p50 ${median(firstCommand).toFixed(1)} ms, p99 ${p99(firstCommand).toFixed(1)} ms`,
          `start, first command, delete p50 ${median(life).toFixed(1)} ms, p99 ${p99(life).toFixed(1)} ms`,
        ]
      : []),
  ].join(' | '),
);
