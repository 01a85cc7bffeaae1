/**
 * Whether the Docker engine can run gVisor sandboxes: `runsc` registered as a runtime
 * (scripts/docker-setup.sh installs and registers it). In CI (or with
 * AGENT_PLATFORM_DOCKER_TESTS=1) an engine without it is an error, not a skip.
 */
import Dockerode from 'dockerode';

/** `null` when the engine lists `runsc`; else why gVisor cases cannot run here, in words. */
export async function runscMissing(): Promise<string | null> {
  let missing: string | null = null;
  try {
    const info = (await new Dockerode().info()) as { Runtimes?: Record<string, unknown> };
    if (!info.Runtimes?.runsc) {
      missing = 'the Docker engine has no runsc runtime (scripts/docker-setup.sh installs gVisor and registers it in /etc/docker/daemon.json)';
    }
  } catch {
    missing = 'no Docker engine answers here (scripts/docker-setup.sh installs and starts one)';
  }
  if (missing !== null && (process.env.CI === 'true' || process.env.AGENT_PLATFORM_DOCKER_TESTS === '1')) throw new Error(missing);
  return missing;
}

/** The runtime classes to run a Docker case under: runc always, runsc where the engine has it. */
export async function runtimeClasses(): Promise<{ classes: ('runc' | 'runsc')[]; runscSkip: string | null }> {
  const runscSkip = await runscMissing();
  return { classes: runscSkip === null ? ['runc', 'runsc'] : ['runc'], runscSkip };
}
