/**
 * The labels the Docker runtime puts on everything it creates. It only ever touches containers
 * and volumes that carry {@link MANAGED_LABEL} and the sandbox id it expects.
 * @module
 */
export const MANAGED_LABEL = 'dev.agent-platform.managed';
export const SANDBOX_ID_LABEL = 'dev.agent-platform.sandbox-id';
export const SPEC_ID_LABEL = 'dev.agent-platform.spec-id';
export const WORKING_DIR_LABEL = 'dev.agent-platform.working-dir';
/** Which runtime instance created it: `close()` removes its own only. */
export const INSTANCE_LABEL = 'dev.agent-platform.runtime-instance';
/**
 * On a sandbox started with `boundToProcess`: it lives only while its process holds its stdin.
 * A runtime removes such containers left stopped (or never started) when it first starts one.
 */
export const BOUND_LABEL = 'dev.agent-platform.bound-to-process';

export function sandboxLabels(sandboxId: string, specId: string, workingDir: string, instance: string, bound = false): Record<string, string> {
  return {
    [MANAGED_LABEL]: 'true',
    [SANDBOX_ID_LABEL]: sandboxId,
    [SPEC_ID_LABEL]: specId,
    [WORKING_DIR_LABEL]: workingDir,
    [INSTANCE_LABEL]: instance,
    ...(bound ? { [BOUND_LABEL]: 'true' } : {}),
  };
}

/** Whether `labels` mark a resource this runtime made for `sandboxId`. */
export function ownedBy(labels: Record<string, string> | null | undefined, sandboxId: string): boolean {
  return labels?.[MANAGED_LABEL] === 'true' && labels[SANDBOX_ID_LABEL] === sandboxId;
}
