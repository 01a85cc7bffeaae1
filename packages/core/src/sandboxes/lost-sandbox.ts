/**
 * A sandbox lost with its host: the runtime cannot reach it because the host it ran on went away
 * (a Docker engine that stopped answering; see `RuntimeSandbox.lost`). Work that failed in such a
 * sandbox failed for the host's sake, not its own: a run is retried (in a sandbox placed
 * elsewhere), within its attempt limit.
 * @module
 */
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';

/** The error of work that failed because its sandbox was lost; its message says why. */
export class SandboxLostError extends Error {}

/** Why the runtime says the sandbox is lost, or `null` when it is not (or cannot say). */
export async function sandboxLoss(runtime: SandboxRuntime, sandboxId: string): Promise<string | null> {
  const sandbox = await runtime.inspect(sandboxId).catch(() => null);
  return sandbox?.lost ?? null;
}
