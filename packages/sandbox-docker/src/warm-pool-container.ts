/**
 * What makes a container a warm pool's, and what a claim changes in it (see warm-pool.ts).
 *
 * A pooled container is created before anyone asks for it, so three things a cold start puts
 * into its create options are settled at the claim instead:
 *
 * - its **name**: it is created as `${prefix}_pool-…` (no sandbox id starts with `_`, so no
 *   sandbox can be asked for under it) and renamed to the sandbox's name by the claim. A rename is
 *   atomic on the engine: of two claims, one wins, the other gets a conflict. Its labels keep the
 *   pool's key; {@link claimedAs} accepts it for the sandbox whose name it now has, and only that;
 * - its **life**: its main process ({@link POOL_INIT}) waits on a stdin the pool holds open, like a
 *   bound sandbox's, so an idle pooled container dies with the process that made it (and the engine
 *   removes it with its anonymous volume: `AutoRemove`). A bound claim keeps it so; a claim that is
 *   not bound writes `keep` to that stdin and closes it: the container then lives on its own;
 * - the start's **environment** (`env`, `SESSION_API_KEY`): kept at the claim ({@link writeStartEnv});
 *   every runtime reads it before its first command there and passes it as the command's
 *   environment, under the command's own: spec, then start, then command.
 * @module
 */
import type Dockerode from 'dockerode';
import { isNotFound } from './docker-errors.js';
import { MANAGED_LABEL } from './labels.js';

/** On a container made for a warm pool: its name, not its labels, says which sandbox claimed it. */
export const POOL_LABEL = 'dev.agent-platform.warm-pool';
/** On the volume that keeps a claimed container's start environment (see {@link writeStartEnv}). */
export const START_ENV_LABEL = 'dev.agent-platform.start-env';

/**
 * PID 1 of a pooled container: the spec's command (if any) in the background; then a line from
 * stdin. `keep` (a claim that is not bound): stdin no longer matters, it runs until stopped (or
 * until the spec's command ends). The end of stdin without it (the pool's or a bound sandbox's
 * process went away): exit, and the engine removes the container.
 */
export const POOL_INIT =
  'trap \'exit 0\' TERM INT; exec 3<&0 </dev/null; main=; if [ $# -gt 0 ]; then "$@" & main=$!; fi; ' +
  '(read -r claim <&3; [ "$claim" = keep ]) & if wait $!; then exec 3<&-; ' +
  'if [ -n "$main" ]; then wait "$main"; exit $?; fi; while :; do sleep 3600 & wait $!; done; fi';

/** The entry point of a pooled container, in place of a bound one's. */
export function poolEntrypoint(command: readonly string[] | undefined): Pick<Dockerode.ContainerCreateOptions, 'Entrypoint' | 'Cmd'> {
  return { Entrypoint: ['/bin/sh', '-c', POOL_INIT, 'sh', ...(command ?? [])], Cmd: [] };
}

/** Whether `info` is a pooled container claimed under `name` (found by that name, it was renamed to it). */
export function claimedAs(info: Dockerode.ContainerInspectInfo, name: string): boolean {
  return info.Config.Labels?.[POOL_LABEL] === 'true' && info.Name === `/${name}`;
}

/**
 * Keeps the start's environment of a claimed container: in a label of a volume named like the
 * sandbox's container, with the sandbox's labels (so deleting the sandbox removes it, as it
 * removes a cold sandbox's named volume). Labels are what the engine shows of a cold sandbox's
 * environment too (`docker inspect`); nothing is written inside the container, and a write there
 * through the engine's archive endpoint costs far more than this.
 */
export async function writeStartEnv(docker: Dockerode, name: string, labels: Record<string, string>, env: Record<string, string>): Promise<void> {
  await docker.createVolume({ Name: name, Labels: { ...labels, [START_ENV_LABEL]: JSON.stringify(env) } });
}

/** The start's environment of a claimed container: `{}` when the start gave none. */
export async function readStartEnv(docker: Dockerode, info: Dockerode.ContainerInspectInfo): Promise<Record<string, string>> {
  try {
    const volume = await docker.getVolume(info.Name.replace(/^\//, '')).inspect();
    const labels = volume.Labels ?? {};
    return labels[MANAGED_LABEL] === 'true' && labels[START_ENV_LABEL] ? (JSON.parse(labels[START_ENV_LABEL]) as Record<string, string>) : {};
  } catch (error) {
    if (isNotFound(error)) return {};
    throw error;
  }
}

/**
 * Removes the start environments of claimed containers that are gone (a bound sandbox's, removed
 * by the engine with its process). Once per runtime, like the bound leftovers' sweep.
 */
export async function sweepStartEnvs(docker: Dockerode): Promise<void> {
  const { Volumes } = await docker.listVolumes({ filters: { label: [`${MANAGED_LABEL}=true`, START_ENV_LABEL] } });
  for (const volume of Volumes ?? []) {
    const container = await docker
      .getContainer(volume.Name)
      .inspect()
      .catch((error: unknown) => (isNotFound(error) ? null : undefined));
    if (container === null)
      await docker
        .getVolume(volume.Name)
        .remove()
        .catch(() => undefined);
  }
}
