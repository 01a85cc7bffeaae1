/**
 * The extra Docker engines of the several-engines tests, started by
 * scripts/docker-second-engine.sh: the shared second engine (CI starts it; tests only use it), and
 * engines of a test's own (one it may stop on purpose, without taking the shared one from the
 * tests beside it). Where the tests must run (CI, or `AGENT_PLATFORM_DOCKER_TESTS=1`), a missing
 * engine is an error, not a skip.
 * @module
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Dockerode from 'dockerode';
import { describe, it } from 'vitest';

export const TEST_IMAGE = process.env.AGENT_PLATFORM_TEST_IMAGE ?? 'agent-platform/busybox:test';
/** The shared second engine: the script's default name. */
export const SECOND_DOCKER_HOST = 'unix:///run/agent-platform-docker-2.sock';
/** The first engine's address: `DOCKER_HOST`, else the local socket. */
export const FIRST_DOCKER_HOST = process.env.DOCKER_HOST?.startsWith('unix://') ? process.env.DOCKER_HOST : 'unix:///var/run/docker.sock';
const SCRIPT = fileURLToPath(new URL('../../../scripts/docker-second-engine.sh', import.meta.url));
const required = process.env.CI === 'true' || process.env.AGENT_PLATFORM_DOCKER_TESTS === '1';

/** Whether both engines answer with the test image; registers a skipped test named `title` when not. */
export async function twoEnginesAvailable(title: string): Promise<boolean> {
  const missing: string[] = [];
  for (const [name, host] of [
    ['the first engine', FIRST_DOCKER_HOST],
    [`the second engine (${SECOND_DOCKER_HOST})`, SECOND_DOCKER_HOST],
  ] as const) {
    try {
      await new Dockerode({ socketPath: host.slice('unix://'.length) }).getImage(TEST_IMAGE).inspect();
    } catch (error) {
      missing.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (missing.length === 0) return true;
  const reason = `no two Docker engines with ${TEST_IMAGE} (run scripts/docker-setup.sh, then scripts/docker-second-engine.sh): ${missing.join('; ')}`;
  if (required) throw new Error(reason);
  describe(title, () => it.skip(reason, () => {}));
  return false;
}

/** Starts the engine `name` (when it is not running) with the test image; its address. */
export async function startEngine(name: string): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [SCRIPT, name]);
  return stdout.trim();
}

/** Stops the engine `name` with `signal` (SIGKILL: gone at once) and waits until its dockerd has exited. */
export async function stopEngine(name: string, signal: NodeJS.Signals): Promise<void> {
  const pid = Number(readFileSync(`/var/lib/${name}/dockerd.pid`, 'utf8'));
  if (!alive(pid)) return;
  process.kill(pid, signal);
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
