/**
 * A sandbox's memory, CPU and pids limits: the start's own, else the runtime's at resource
 * factor 1 scaled by the start's factor (CPUs capped at the engine's count).
 * @module
 */
import type Dockerode from 'dockerode';
import type { SandboxLimits, StartSandboxInput } from '@agent-platform/core';

/** Limits of a sandbox at resource factor 1 when the runtime sets none. */
export const DEFAULT_LIMITS: Required<SandboxLimits> = { memoryBytes: 2 * 1024 ** 3, cpus: 1, pids: 1024 };

export class StartLimits {
  private cpuCount: Promise<number> | undefined;

  constructor(
    private readonly docker: Dockerode,
    private readonly limits: SandboxLimits | undefined,
  ) {}

  async of(input: Pick<StartSandboxInput, 'limits' | 'resourceFactor'>): Promise<SandboxLimits> {
    if (input.limits) return input.limits;
    const base = { ...DEFAULT_LIMITS, ...this.limits };
    const factor = input.resourceFactor && input.resourceFactor > 0 ? input.resourceFactor : 1;
    this.cpuCount ??= this.docker.info().then(
      (info: { NCPU?: number }) => info.NCPU ?? 1,
      () => 1,
    );
    const cpus = Math.min(base.cpus * factor, await this.cpuCount);
    return { memoryBytes: base.memoryBytes * factor, cpus, pids: base.pids * factor };
  }
}
