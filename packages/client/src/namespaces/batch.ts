import { AgentPlatformError } from '../transport/errors.js';
import type { CallOptions } from '../transport/transport.js';

/** The server takes at most this many ids per batch get. */
export const MAX_BATCH_IDS = 100;

/** A batch get over any number of ids: requests of at most 100, one after another, answers in order. */
export async function batched<T>(ids: readonly string[], fetchChunk: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < ids.length; start += MAX_BATCH_IDS) {
    results.push(...(await fetchChunk(ids.slice(start, start + MAX_BATCH_IDS))));
  }
  return results;
}

/**
 * One record through a batch-get endpoint (the API has no single get for it): `null` becomes the
 * 404 `AgentPlatformError` the service's own gets answer. `url` is the batch get's, for the error.
 */
export async function oneById<T>(
  url: string,
  what: string,
  getMany: (ids: string[], options?: CallOptions) => Promise<(T | null)[]>,
  id: string,
  options?: CallOptions,
): Promise<T> {
  const [found] = await getMany([id], options);
  if (!found) throw new AgentPlatformError({ status: 404, detail: `${what} not found`, method: 'GET', url });
  return found;
}
