/**
 * What the engine's container state means for a sandbox, and engine calls whose failures are
 * not answers.
 * @module
 */
import type Dockerode from 'dockerode';
import { PlatformError, type SandboxStatus } from '@agent-platform/core';
import { dockerMessage, dockerStatus, isConflict, isNotFound } from './docker-errors.js';

/** A container's Docker state as a sandbox status: paused or exited → PAUSED, running → RUNNING, created or restarting → STARTING, else ERROR. */
export function statusOf(state: Dockerode.ContainerInspectInfo['State']): SandboxStatus {
  if (state.Paused || state.Status === 'paused' || state.Status === 'exited') return 'PAUSED';
  if (state.Status === 'running') return 'RUNNING';
  if (state.Status === 'created' || state.Status === 'restarting') return 'STARTING';
  return 'ERROR';
}

export const ignoreConflict = (error: unknown): void => {
  if (!isConflict(error)) throw error;
};
/** 304: the container was already running. */
export const ignoreNotModified = (error: unknown): void => {
  if (dockerStatus(error) !== 304) throw error;
};

/** Engine errors that are not answers (the socket is gone, the daemon is down) become UNAVAILABLE. */
export async function engineCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PlatformError || dockerStatus(error) !== undefined) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^(ECONNREFUSED|ENOENT|ECONNRESET|EPIPE|ETIMEDOUT|EACCES)$/.test(code)) {
      throw new PlatformError('UNAVAILABLE', `The Docker engine is unreachable: ${dockerMessage(error)}`, { cause: error });
    }
    throw error;
  }
}

/** The container of that name or id as the engine describes it; null when there is none. */
export async function containerInfo(docker: Dockerode, name: string): Promise<Dockerode.ContainerInspectInfo | null> {
  try {
    return await docker.getContainer(name).inspect();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
